package dev.archlab.inbox.bench;

import io.lettuce.core.RedisURI;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import org.apache.camel.component.redis.processor.idempotent.SpringRedisStringIdempotentRepository;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Camel's {@link SpringRedisStringIdempotentRepository} driven the way Camel's idempotent consumer
 * drives it with its defaults (eager): {@code add} before the effect, the effect, {@code confirm}
 * after it. The repository is wired as a Camel user wires it: a Spring Data {@link
 * StringRedisTemplate} on a {@link LettuceConnectionFactory}, whose one shared connection serves
 * every thread (as the Redis store's one connection does), no expiry (the repository's default).
 *
 * <p>{@code camel-spring-redis} 4.17.0 (the newest on the Maven Central reachable here) runs on the
 * 4.22 Camel core of the other peers and on the Spring Data Redis of the bench's Spring Framework;
 * {@link #open} refuses to measure it unless a duplicate is rejected on this classpath.
 */
final class CamelRedisDriver implements BenchSystem.Driver {

  /** The repository name: Camel prefixes every key with it. */
  static final String REPOSITORY = "camel-redis";

  private final LettuceConnectionFactory factory;
  private final SpringRedisStringIdempotentRepository repository;
  private final LongAdder effects;

  private CamelRedisDriver(
      LettuceConnectionFactory factory,
      SpringRedisStringIdempotentRepository repository,
      LongAdder effects) {
    this.factory = factory;
    this.repository = repository;
    this.effects = effects;
  }

  /**
   * Starts the repository on the server at {@code uri} and checks that it deduplicates: a probe id
   * added twice must be accepted once and rejected once, then is removed again.
   *
   * @throws IllegalStateException if the repository does not reject the duplicate
   */
  static CamelRedisDriver open(RedisURI uri, LongAdder effects) {
    LettuceConnectionFactory factory =
        new LettuceConnectionFactory(
            new RedisStandaloneConfiguration(uri.getHost(), uri.getPort()));
    factory.afterPropertiesSet();
    factory.start();
    StringRedisTemplate template = new StringRedisTemplate(factory);
    SpringRedisStringIdempotentRepository repository =
        new SpringRedisStringIdempotentRepository(template, REPOSITORY);
    repository.start();
    String probe = "probe-" + System.nanoTime();
    boolean first = repository.add(probe);
    boolean second = repository.add(probe);
    boolean contained = repository.contains(probe);
    repository.remove(probe);
    if (!first || second || !contained) {
      repository.stop();
      factory.destroy();
      throw new IllegalStateException(
          "Camel's SpringRedisStringIdempotentRepository does not deduplicate on this classpath:"
              + " add, add, contains answered "
              + first
              + ", "
              + second
              + ", "
              + contained);
    }
    return new CamelRedisDriver(factory, repository, effects);
  }

  @Override
  public int deliver(List<String> ids) {
    String id = ids.get(0);
    if (!repository.add(id)) {
      return 0; // Camel's consumer drops the exchange as a duplicate
    }
    effects.increment();
    // Writes nothing in this repository; called because Camel's consumer calls it on success.
    repository.confirm(id);
    return 1;
  }

  @Override
  public void close() {
    repository.stop();
    factory.destroy();
  }
}
