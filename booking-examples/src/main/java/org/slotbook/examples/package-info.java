/**
 * Runnable examples: the quick start, the booking rules, lesson packages, a flash sale and the
 * benchmarks' entry points.
 */
@NullMarked
package org.slotbook.examples;

import org.jspecify.annotations.NullMarked;
