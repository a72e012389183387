/**
 * The JDBC store's machinery (SQL text per dialect, the decision calls, the H2 routines, script
 * parsing): internal, not API, and may change in any release without notice.
 */
@NullMarked
package org.slotbook.jdbc.internal;

import org.jspecify.annotations.NullMarked;
