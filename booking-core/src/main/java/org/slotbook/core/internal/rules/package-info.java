/**
 * The booking rules, each decision stated once over the storage port
 * {@link org.slotbook.core.rules.RuleTx}: internal, not API. {@link org.slotbook.core.internal.rules.Rules}
 * is the facade (the reads are its own); {@link org.slotbook.core.rules.RulesStore} calls it in one
 * transaction per decision, and the H2 store calls it inside the database as its routines. The types are
 * public only so that those callers can reach them; they may change in any release without notice.
 */
@NullMarked
package org.slotbook.core.internal.rules;

import org.jspecify.annotations.NullMarked;
