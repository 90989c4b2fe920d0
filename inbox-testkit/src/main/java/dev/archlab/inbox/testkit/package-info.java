/**
 * The tests every {@link dev.archlab.inbox.store.InboxStore} must pass, shipped as a library for
 * store authors: extend the abstract classes in a store module's tests and supply a {@link
 * dev.archlab.inbox.testkit.StoreFixture} (an empty store plus a way to move its clock).
 *
 * <ul>
 *   <li>{@link dev.archlab.inbox.testkit.InboxStoreContractTest}: the contract's scenarios
 *       (docs/DESIGN.md §4), fencing, extension, payload, result, bad input and a concurrency
 *       stress test.
 *   <li>{@link dev.archlab.inbox.testkit.InboxStoreModelTest}: seeded random operation sequences
 *       sent both to the store and to a reference model of the contract, compared after every step.
 *       A build checks seeds 1 to 200 (the same ones every time); {@code -Dinbox.model.seeds=N} and
 *       {@code -Dinbox.model.firstSeed=S} run more or other seeds. A failure is shrunk (operations
 *       dropped while it still fails, each try on a fresh store) and reported with its seed, the
 *       short sequence, each step's answers and the property that replays it, {@code
 *       -Dinbox.model.seed=S}.
 * </ul>
 *
 * <p>Both are plain JUnit 5 (with AssertJ); a store module needs no other test dependency. Name the
 * subclasses {@code ...Test} so Surefire's default includes run them. {@link
 * dev.archlab.inbox.testkit.MutableClock} is a clock a fixture can move.
 */
package dev.archlab.inbox.testkit;
