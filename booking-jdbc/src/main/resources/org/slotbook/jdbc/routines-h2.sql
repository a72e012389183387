-- Slotbook decision routines for H2 2.x, run after schema-h2.sql.
-- ${prefix} is the table prefix (default slotbook_); Flyway users define the placeholder "prefix".
-- The decision routines (org.slotbook.jdbc.internal.H2Routines): one Java method serves every prefix, so each takes the
-- table prefix as its first SQL argument, e.g. CALL ${prefix}hold('${prefix}', ...). Each answers
-- with the contract's fact rows. Plain SQL: Flyway runs these as they are.
CREATE ALIAS IF NOT EXISTS ${prefix}schedule FOR 'org.slotbook.jdbc.internal.H2Routines.schedule';
CREATE ALIAS IF NOT EXISTS ${prefix}hold FOR 'org.slotbook.jdbc.internal.H2Routines.hold';
CREATE ALIAS IF NOT EXISTS ${prefix}confirm FOR 'org.slotbook.jdbc.internal.H2Routines.confirm';
CREATE ALIAS IF NOT EXISTS ${prefix}cancel FOR 'org.slotbook.jdbc.internal.H2Routines.cancel';
CREATE ALIAS IF NOT EXISTS ${prefix}cancel_slot FOR 'org.slotbook.jdbc.internal.H2Routines.cancelSlot';
CREATE ALIAS IF NOT EXISTS ${prefix}expire_due FOR 'org.slotbook.jdbc.internal.H2Routines.expireDue';
CREATE ALIAS IF NOT EXISTS ${prefix}leave_waitlist FOR 'org.slotbook.jdbc.internal.H2Routines.leaveWaitlist';
CREATE ALIAS IF NOT EXISTS ${prefix}grant_package FOR 'org.slotbook.jdbc.internal.H2Routines.grantPackage';
CREATE ALIAS IF NOT EXISTS ${prefix}check_in FOR 'org.slotbook.jdbc.internal.H2Routines.checkIn';
CREATE ALIAS IF NOT EXISTS ${prefix}schedule_series FOR 'org.slotbook.jdbc.internal.H2Routines.scheduleSeries';
CREATE ALIAS IF NOT EXISTS ${prefix}cancel_series FOR 'org.slotbook.jdbc.internal.H2Routines.cancelSeries';
CREATE ALIAS IF NOT EXISTS ${prefix}hold_all FOR 'org.slotbook.jdbc.internal.H2Routines.holdAll';
