package org.slotbook.core;

/**
 * Counters of one engine since it was built.
 *
 * @param gateFull             holds answered {@code Full} by the gate alone, without the database
 * @param gateHeldLedgerRefused gate holds that the ledger then refused (the gate over-admitted; answered from the ledger,
 *                             and the slot's gate state reconciled)
 * @param gateUnavailable      calls that found the gate unreachable and went on with the database alone
 * @param gateOrphansReleased  gate holds without a live booking (a crash between gate and commit) released and retried
 * @param gateRebuilds         slots whose missing gate state was rebuilt from the ledger
 */
public record EngineMetrics(long gateFull, long gateHeldLedgerRefused, long gateUnavailable, long gateOrphansReleased,
                            long gateRebuilds) {
}
