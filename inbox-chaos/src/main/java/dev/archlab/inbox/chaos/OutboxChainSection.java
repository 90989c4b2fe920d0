package dev.archlab.inbox.chaos;

import java.util.List;
import java.util.Map;

/**
 * The section of {@code docs/RELIABILITY.md} that the outbox chain's runs fill (rows whose {@code
 * suite} column is {@code outbox}, written by {@code OutboxChainUnderKillsTest} through the
 * testkit's {@code RunFigures}): what the run does and a table of its runs. Always rendered, with a
 * line saying so when no figures are there.
 */
final class OutboxChainSection {

  static final String SUITE = "outbox";

  static final String HEADING = "Outbox: two services end to end (`inbox-outbox`)";

  /** Columns that must be 0 in a row the report renders, beside double effects and losses. */
  static final List<String> MUST_BE_ZERO = List.of("poison_sent", "key_order_violations");

  private OutboxChainSection() {}

  /** Appends the section with the rows of {@code rows} for it. */
  static void append(StringBuilder md, List<Map<String, String>> rows) {
    md.append("## ").append(HEADING).append("\n\n");
    md.append(
        "Each row is written by `OutboxChainUnderKillsTest` (in `inbox-chaos`) only after every"
            + " check of its run held. Service A consumes `orders` with its inbox in one-commit"
            + " mode (`KafkaInboxLoop`, `OneCommitConsumer`): for each order it writes a row and"
            + " sends a `payments` message through the outbox (`Outbox.sendsOf(attempt,"
            + " connection)`), keyed by the order's customer, in the transaction that claims the"
            + " order and records it DONE; a poison order sends first and then throws, so each of"
            + " its failed attempts must roll its send back. Relays (`OutboxRelay`,"
            + " `KafkaOutboxPublisher`: idempotent producer, `acks=all`) publish the outbox. Service"
            + " B consumes `payments` with its own inbox, deduplicating by the outgoing id the"
            + " outbox derived from A's consumer, the order id and the send's position, and writes"
            + " a row. Three processes of A, two relays and two of B share one PostgreSQL and one"
            + " Kafka broker on 127.0.0.1; neither effect table has a unique key. N orders of 20"
            + " customers, 5 of them poison, 10 % produced twice. The orders go out in chunks;"
            + " between chunks the driver SIGKILLs a running process, of A, a relay and B in"
            + " turn, and starts another of its kind (a relay is asked to stop inside its next"
            + " round after the broker acknowledged rows, before it marks them SENT, and is killed"
            + " there if it had work within 20 s);"
            + " half-way it restarts the broker. The run"
            + " fails unless every planned kill and the restart happened and, checked id by id:"
            + " every good order has exactly one row in A and one in B and is DONE in both"
            + " inboxes; every poison order is DEAD in A, on A's dead-letter topic, without a row"
            + " and never sent; the outbox holds exactly one SENT row per good order and nothing"
            + " unsent; and for every customer B applied the payments in the order of their outbox"
            + " rows. *Relay duplicates* are the `payments` records beyond one per id: the rows of"
            + " a relay killed after the broker's acknowledgement and before its own commit are"
            + " published again, and B's inbox absorbs them; the run fails unless there is at least"
            + " one per relay killed inside a round.\n\n");
    md.append(
        "Reproduce: `./mvnw -B verify -pl inbox-chaos -am -Dtest=OutboxChainUnderKillsTest"
            + " -Dsurefire.failIfNoSpecifiedTests=false` (short, as CI runs it); add"
            + " `-Doutbox.chain.n=20000 -Doutbox.chain.kills=15` for the long profile.\n\n");
    List<Map<String, String>> mine =
        rows.stream().filter(r -> SUITE.equals(r.get("suite"))).toList();
    if (mine.isEmpty()) {
      md.append("_No figures for this run yet._\n\n");
      return;
    }
    md.append(
        "| scale | orders | records | A / relays / B | SIGKILL A / relay (inside a round) / B |"
            + " broker restarts |"
            + " process starts | rows in A | outbox rows | rows in B | double effects | lost |"
            + " poison sent | payments records | relay duplicates | key order violations |"
            + " duration |\n");
    md.append("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for (Map<String, String> r : mine) {
      md.append("| ")
          .append(
              String.join(
                  " | ",
                  r.get("scale"),
                  r.get("orders"),
                  r.get("records"),
                  r.get("a_processes") + " / " + r.get("relays") + " / " + r.get("b_processes"),
                  r.get("kills_a")
                      + " / "
                      + r.get("kills_relay")
                      + " ("
                      + r.get("relay_kills_mid_round")
                      + ") / "
                      + r.get("kills_b"),
                  r.get("broker_restarts"),
                  r.get("process_starts"),
                  r.get("a_effects"),
                  r.get("outbox_rows"),
                  r.get("b_effects"),
                  r.get("double_effects"),
                  r.get("lost"),
                  r.get("poison_sent"),
                  r.get("payments_records"),
                  r.get("relay_duplicates"),
                  r.get("key_order_violations"),
                  r.get("seconds") + " s"))
          .append(" |\n");
    }
    md.append('\n');
  }
}
