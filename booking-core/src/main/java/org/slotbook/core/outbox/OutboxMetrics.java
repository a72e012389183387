package org.slotbook.core.outbox;

/**
 * The outbox's counters since the engine was built, and the backlog the relay saw on its last pass.
 *
 * @param deliveredInProcess events the deciding node delivered right after its commit
 * @param relayed events the relay delivered
 * @param failures tries that failed (the listener threw)
 * @param deadLetters events that became dead letters
 * @param redelivered dead letters an operator sent again
 * @param backlog undelivered events of the tenants the last pass visited
 * @param oldestPendingMillis the age of the oldest of them, in milliseconds (0: none)
 */
public record OutboxMetrics(long deliveredInProcess, long relayed, long failures, long deadLetters, long redelivered,
                            long backlog, long oldestPendingMillis) {
}
