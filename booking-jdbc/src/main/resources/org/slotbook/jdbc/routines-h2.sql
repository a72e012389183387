-- Slotbook decision routines for H2 2.x, run after schema-h2.sql.
-- ${prefix} is the table prefix (default slotbook_); Flyway users define the placeholder "prefix".
-- The decision routines (org.slotbook.jdbc.internal.H2Routines): one Java method serves every prefix, so each takes the
-- table prefix as its first SQL argument, e.g. CALL ${prefix}hold('${prefix}', ...). Each answers
-- with the contract's fact rows. Plain SQL: Flyway runs these as they are.
-- DETERMINISTIC only tells H2 that a statement calling one need not be compiled again at every
-- execution (H2 recompiles a statement whose FROM calls a non-deterministic alias each time). H2 never
-- reuses a table function's result, so each execution still runs the routine. An alias created before
-- without it keeps working, compiled at every call, until it is dropped and created again.
CREATE ALIAS IF NOT EXISTS ${prefix}schedule DETERMINISTIC FOR 'org.slotbook.jdbc.internal.H2Routines.schedule';
CREATE ALIAS IF NOT EXISTS ${prefix}hold DETERMINISTIC FOR 'org.slotbook.jdbc.internal.H2Routines.hold';
CREATE ALIAS IF NOT EXISTS ${prefix}confirm DETERMINISTIC FOR 'org.slotbook.jdbc.internal.H2Routines.confirm';
CREATE ALIAS IF NOT EXISTS ${prefix}cancel DETERMINISTIC FOR 'org.slotbook.jdbc.internal.H2Routines.cancel';
CREATE ALIAS IF NOT EXISTS ${prefix}cancel_slot DETERMINISTIC FOR 'org.slotbook.jdbc.internal.H2Routines.cancelSlot';
CREATE ALIAS IF NOT EXISTS ${prefix}expire_due DETERMINISTIC FOR 'org.slotbook.jdbc.internal.H2Routines.expireDue';
CREATE ALIAS IF NOT EXISTS ${prefix}leave_waitlist DETERMINISTIC FOR 'org.slotbook.jdbc.internal.H2Routines.leaveWaitlist';
CREATE ALIAS IF NOT EXISTS ${prefix}grant_package DETERMINISTIC FOR 'org.slotbook.jdbc.internal.H2Routines.grantPackage';
CREATE ALIAS IF NOT EXISTS ${prefix}check_in DETERMINISTIC FOR 'org.slotbook.jdbc.internal.H2Routines.checkIn';
CREATE ALIAS IF NOT EXISTS ${prefix}schedule_series DETERMINISTIC FOR 'org.slotbook.jdbc.internal.H2Routines.scheduleSeries';
CREATE ALIAS IF NOT EXISTS ${prefix}cancel_series DETERMINISTIC FOR 'org.slotbook.jdbc.internal.H2Routines.cancelSeries';
CREATE ALIAS IF NOT EXISTS ${prefix}hold_all DETERMINISTIC FOR 'org.slotbook.jdbc.internal.H2Routines.holdAll';
