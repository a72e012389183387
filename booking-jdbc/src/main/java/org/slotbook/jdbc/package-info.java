/**
 * The JDBC store: {@link org.slotbook.jdbc.JdbcStore} runs each decision as one routine call on
 * PostgreSQL, MariaDB (and MySQL) or H2; {@link org.slotbook.jdbc.JdbcSchema} creates and drops the
 * shipped tables and routines; {@link org.slotbook.jdbc.TenantMove} moves a tenant between stores.
 */
@NullMarked
package org.slotbook.jdbc;

import org.jspecify.annotations.NullMarked;
