package org.h2.mvstore.tx;

import org.h2.mvstore.Cursor;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;
import org.h2.value.VersionedValue;

/**
 * Shows, below any SQL and without Inbox, that an H2 file written by concurrent transactions and
 * killed (here {@code Runtime.halt}, the effect of SIGKILL) can reopen with uncommitted entries
 * that no recovery removes. In H2's package only to read the raw map of a transactional map.
 *
 * <pre>
 * TornStress run FILE MILLIS   4 transactional writers and a store commit every millisecond,
 *                              then halt
 * TornStress check FILE        reopen as a restarted process does and count orphaned entries
 * </pre>
 *
 * <p>An orphaned entry still carries the operation id of a transaction that died with the process;
 * a healthy file has none after {@code endLeftoverTransactions}. See {@code run.sh} and {@code
 * docs/H2-SIGKILL.md}.
 */
public class TornStress {
  public static void main(String[] args) throws Exception {
    String file = args[1];
    MVStore store = new MVStore.Builder().fileName(file).autoCommitDisabled().open();
    TransactionStore transactions = new TransactionStore(store);
    transactions.init();
    if (args[0].equals("run")) {
      for (int w = 0; w < 4; w++) {
        Thread writer =
            new Thread(
                () -> {
                  java.util.Random random = new java.util.Random();
                  while (true) {
                    Transaction tx = transactions.begin();
                    TransactionMap<Integer, String> data = tx.openMap("data");
                    TransactionMap<Integer, String> index = tx.openMap("index");
                    int key = random.nextInt(100_000);
                    data.put(key, "v" + key);
                    index.put(key, "i" + key);
                    if (random.nextInt(20) == 0) {
                      tx.rollback();
                    } else {
                      tx.commit();
                    }
                  }
                });
        writer.setDaemon(true);
        writer.start();
      }
      long end = System.currentTimeMillis() + Long.parseLong(args[2]);
      while (System.currentTimeMillis() < end) {
        store.commit();
        Thread.sleep(1);
      }
      Runtime.getRuntime().halt(0);
    }
    transactions.endLeftoverTransactions();
    int orphans = 0;
    for (String name : new String[] {"data", "index"}) {
      if (!store.hasMap(name)) {
        continue;
      }
      @SuppressWarnings("unchecked")
      MVMap<Object, Object> raw =
          (MVMap<Object, Object>) (MVMap<?, ?>) transactions.begin().openMap(name).map;
      Cursor<Object, Object> cursor = raw.cursor(null);
      while (cursor.hasNext()) {
        cursor.next();
        Object value = cursor.getValue();
        if (value instanceof VersionedValue && ((VersionedValue<?>) value).getOperationId() != 0) {
          orphans++;
        }
      }
    }
    System.out.println("orphans " + orphans);
  }
}
