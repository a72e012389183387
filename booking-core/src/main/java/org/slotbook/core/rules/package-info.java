/**
 * The booking rules stated once, over storage a backend brings: implement {@link
 * org.slotbook.core.rules.RuleStorage} (one transaction per decision, the reads and writes of
 * {@link org.slotbook.core.rules.RuleTx}) and {@link org.slotbook.core.rules.RulesStore} turns it
 * into a {@link org.slotbook.core.spi.BookingStore} that decides every rule: capacity, overlaps and
 * buffers, windows and cutoffs, limits, waitlists, credits, attendance and series.
 *
 * <p>The in-memory store is these rules over maps, and H2 runs them inside the database as its
 * routines; PostgreSQL and MariaDB run the same decisions as their own routines, and the contract
 * suites of booking-core's test-jar keep all of them giving the same answers.
 */
@NullMarked
package org.slotbook.core.rules;

import org.jspecify.annotations.NullMarked;
