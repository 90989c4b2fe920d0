package dev.archlab.inbox.chaos;

import java.util.List;
import java.util.Map;

/**
 * The sections of {@code docs/RELIABILITY.md} that the broker adapters' scale-out runs fill (rows
 * whose {@code suite} column is {@code kafka} or {@code rabbitmq}, written by their {@code
 * ScaleOutUnderKillsTest} through the testkit's {@code RunFigures}): what each run does and a table
 * of its runs. Both sections are always rendered, with a line saying so when no figures are there.
 */
final class BrokerSections {

  /** The suites, in the order of their sections: name, heading, what the run does. */
  static final List<List<String>> SUITES =
      List.of(
          List.of(
              "kafka",
              "Kafka (`inbox-kafka`)",
              "Each row is written by `ScaleOutUnderKillsTest` (in `inbox-kafka`) only after every "
                  + "check of its run held. A real KRaft broker in its own JVM and embedded PostgreSQL "
                  + "17, both on 127.0.0.1; a topic with 6 partitions; a group of 3 consumer JVMs "
                  + "(`KafkaInboxLoop`, batch mode, business rows in the inbox's transaction in a table "
                  + "without a unique key); N ids of which 5 are poison and 10 % are sent again as "
                  + "separate records with the same id. The ids go out in chunks; between chunks the "
                  + "driver SIGKILLs a random consumer that has applied a record since its start and "
                  + "starts another (a rebalance each time). The run fails unless the group committed to "
                  + "the end of every partition, every planned kill happened, and every id keeps the "
                  + "invariant (checked per id by `ScaleOutLedger` of `inbox-testkit`, the first 20 "
                  + "offenders named with their inbox state, attempts, last error and dead-letter "
                  + "presence): a good id is DONE with exactly one effect row, or DEAD with none, on the "
                  + "dead-letter topic and with the lease-expiry error; a poison id is DEAD, without "
                  + "effect and on the dead-letter topic; every id has an inbox row (nothing lost, "
                  + "nothing left PROCESSING); no effect for a poison or unknown id. A good id may end "
                  + "DEAD because the consumers run with a 5 s lease, 2 attempts, and batches do not "
                  + "renew their leases: a kill leaves the victim's claims to expire, and on a heavily "
                  + "loaded machine a batch (or a whole JVM) can stall past the lease, so two expiries "
                  + "in a row spend both attempts and the next claim parks the id DEAD — the promise of "
                  + "that configuration, counted in the column *good ids DEAD by lease expiry*. Without "
                  + "kills, each poison id is on the dead-letter topic exactly once "
                  + "(`KafkaInboxLoopTest.duplicatesApplyOncePoisonAndRecordsWithoutIdReachTheDeadLetterTopicOnce`, "
                  + "all three modes). `CommitNeverPassesUnfinishedTest` kills a consumer whose handler "
                  + "is blocked inside its transaction and checks the committed offset is the unfinished "
                  + "record's.",
              "Reproduce: `./mvnw -B verify -pl inbox-kafka -am -Dtest=ScaleOutUnderKillsTest "
                  + "-Dsurefire.failIfNoSpecifiedTests=false` (short, as CI runs it); add "
                  + "`-Dkafka.scale.n=20000 -Dkafka.scale.kills=10` for the long profile."),
          List.of(
              "rabbitmq",
              "RabbitMQ (`inbox-rabbitmq`)",
              "Each row is written by `ScaleOutUnderKillsTest` (in `inbox-rabbitmq`) only after "
                  + "every check of its run held. A real RabbitMQ 3.10.8 server (Debian's "
                  + "`rabbitmq-server`, Erlang 25, started by the test as `nobody` on free 127.0.0.1 "
                  + "ports) and embedded PostgreSQL 17; one durable work queue with its retry queue, "
                  + "dead-letter exchange and dead-letter queue (`RabbitTopology`); 3 consumer JVMs "
                  + "(`RabbitInboxConsumer`, batch mode of up to 100 deliveries, 2 channels each, "
                  + "prefetch 200, business rows in the inbox's transaction in a table without a unique "
                  + "key); N ids of which 5 are poison and 10 % are published again as separate messages "
                  + "with the same id, all persistent and publisher-confirmed. The ids go out in chunks; "
                  + "between chunks the driver SIGKILLs a random consumer that has applied a delivery "
                  + "since its start and starts another, and once, half-way, stops the broker cleanly "
                  + "and starts it again on the same data (the later chunks are published only after "
                  + "that, so the restart is mid-run by construction; the consumers reconnect by "
                  + "themselves). The run waits until every id has an inbox record in a final state "
                  + "(DONE or DEAD) and every DEAD id is in the dead-letter queue, and fails unless "
                  + "every planned kill and the restart happened and every id keeps the same invariant "
                  + "as the Kafka run (checked per id by `ScaleOutLedger` of `inbox-testkit`, the first "
                  + "20 offenders named with their inbox state, attempts, last error and dead-letter "
                  + "presence; a wait that runs out names them too): a good id is DONE with exactly one "
                  + "effect row, or DEAD with none, in the dead-letter queue and with the lease-expiry "
                  + "error; a poison id is DEAD, without effect and in the dead-letter queue; every id "
                  + "has an inbox record (nothing lost, nothing left PROCESSING); no effect for a poison "
                  + "or unknown id. A good id may end DEAD for the same reason as in the Kafka run (5 s "
                  + "lease, 2 attempts, batches that do not renew their leases, kills and a loaded "
                  + "machine), counted in the column *good ids DEAD by lease expiry*; an exact count of "
                  + "DONE ids would make the verdict depend on the machine's speed. Without kills, each "
                  + "poison id is in the dead-letter queue exactly once and both deliveries without a "
                  + "message id are there with the reason "
                  + "(`RabbitInboxConsumerTest.duplicatesApplyOncePoisonAndDeliveriesWithoutIdReachTheDeadLetterQueueOnce`, "
                  + "all three modes). "
                  + "`RabbitInboxConsumerTest.afterABrokerRestartTheConsumerResumesByItselfAndAppliesNothingTwice` "
                  + "restarts the broker while a handler holds a delivery unacked: it comes back marked "
                  + "redelivered, is answered DUPLICATE, and every id has one effect. "
                  + "`failedDeliveriesComeBackThroughTheRetryQueueNoSoonerThanTheirBackoff` checks that "
                  + "each FAILED delivery came back through the retry queue (the broker's `x-death`: "
                  + "queue `….retry`, reason `expired`) no sooner than its TTL (= `retryAfter()` rounded "
                  + "up) after the failure; only this lower bound is asserted.",
              "Reproduce: `./mvnw -B verify -pl inbox-rabbitmq -am -Dtest=ScaleOutUnderKillsTest "
                  + "-Dsurefire.failIfNoSpecifiedTests=false` (short, as CI runs it); add "
                  + "`-Drabbit.scale.n=20000 -Drabbit.scale.kills=10` for the long profile."));

  private BrokerSections() {}

  /** Whether {@code suite} has a section. */
  static boolean renders(String suite) {
    return SUITES.stream().anyMatch(s -> s.get(0).equals(suite));
  }

  /** Appends each suite's section with the rows of {@code rows} for it. */
  static void append(StringBuilder md, List<Map<String, String>> rows) {
    for (List<String> suite : SUITES) {
      md.append("## ").append(suite.get(1)).append("\n\n");
      md.append(suite.get(2)).append("\n\n");
      md.append(suite.get(3)).append("\n\n");
      List<Map<String, String>> mine =
          rows.stream().filter(r -> suite.get(0).equals(r.get("suite"))).toList();
      if (mine.isEmpty()) {
        md.append("_No figures for this run yet._\n\n");
        continue;
      }
      md.append(
          "*dead letters* counts the records on the dead-letter destination, copies included: a"
              + " consumer killed after its dead-letter publish and before its acknowledgement"
              + " publishes again when the message comes back, so it can exceed *DEAD*; the"
              + " ledger checks that every DEAD id is there and nothing else is.\n\n");
      md.append(
          "| scale | ids | records | partitions (queues) | consumer JVMs | SIGKILL + restart |"
              + " broker restarts | process starts | effect rows | double effects | lost | DEAD |"
              + " good ids DEAD by lease expiry | dead letters | duration |\n");
      md.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
      for (Map<String, String> r : mine) {
        md.append("| ")
            .append(
                String.join(
                    " | ",
                    r.get("scale"),
                    r.get("ids"),
                    r.get("records"),
                    r.get("partitions"),
                    r.get("consumers"),
                    r.get("kills"),
                    r.get("broker_restarts"),
                    r.get("process_starts"),
                    r.get("effect_rows"),
                    r.get("double_effects"),
                    r.get("lost"),
                    r.get("dead"),
                    r.get("good_dead_by_lease_expiry"),
                    r.get("dead_letters"),
                    r.get("seconds") + " s"))
            .append(" |\n");
      }
      md.append('\n');
    }
  }
}
