-- Slotbook V1 for h2: the tables (schema-h2.sql) and the decision routines (routines-h2.sql) as of
-- release 0.1.0, with the table prefix as the Flyway placeholder ${slotbook_prefix}. Released migrations
-- never change: a schema change ships as the next version (V2__...).

-- Slotbook ledger schema for H2 2.x (embedded; tests and small deployments).
-- ${slotbook_prefix} is the table prefix (default slotbook_); this migration names it slotbook_prefix.
-- Every statement is idempotent. Times are UTC instants (TIMESTAMP(6) WITH TIME ZONE).

CREATE TABLE IF NOT EXISTS ${slotbook_prefix}slot (
    tenant_id   VARCHAR(64) NOT NULL,
    slot_id     VARCHAR(64) NOT NULL,
    coach_id    VARCHAR(64) NOT NULL,
    room_id     VARCHAR(64) NOT NULL,
    starts_at   TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    ends_at     TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    capacity    INTEGER     NOT NULL,
    status      VARCHAR(16) NOT NULL,
    opens_at    TIMESTAMP(6) WITH TIME ZONE,
    closes_at   TIMESTAMP(6) WITH TIME ZONE,
    buffer_seconds INTEGER  NOT NULL DEFAULT 0,
    cancel_policy VARCHAR(8) CHECK (cancel_policy IN ('FREE', 'REFUSE', 'LATE')),
    cancel_cutoff_seconds INTEGER,
    week_start  TIMESTAMP(6) WITH TIME ZONE,
    week_end    TIMESTAMP(6) WITH TIME ZONE,
    buffer_students BOOLEAN NOT NULL DEFAULT FALSE,
    class_type  VARCHAR(32),
    cost        INTEGER     NOT NULL DEFAULT 0,
    series_id   VARCHAR(64),
    CONSTRAINT ${slotbook_prefix}slot_pk PRIMARY KEY (tenant_id, slot_id),
    CONSTRAINT ${slotbook_prefix}slot_time_ck CHECK (starts_at < ends_at),
    CONSTRAINT ${slotbook_prefix}slot_capacity_ck CHECK (capacity > 0),
    CONSTRAINT ${slotbook_prefix}slot_status_ck CHECK (status IN ('OPEN', 'CANCELLED'))
);
-- The booking rules of a slot, added to a schema created before them.
ALTER TABLE ${slotbook_prefix}slot ADD COLUMN IF NOT EXISTS opens_at TIMESTAMP(6) WITH TIME ZONE;
ALTER TABLE ${slotbook_prefix}slot ADD COLUMN IF NOT EXISTS closes_at TIMESTAMP(6) WITH TIME ZONE;
ALTER TABLE ${slotbook_prefix}slot ADD COLUMN IF NOT EXISTS buffer_seconds INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ${slotbook_prefix}slot ADD COLUMN IF NOT EXISTS cancel_policy VARCHAR(8)
    CHECK (cancel_policy IN ('FREE', 'REFUSE', 'LATE'));
ALTER TABLE ${slotbook_prefix}slot ADD COLUMN IF NOT EXISTS cancel_cutoff_seconds INTEGER;
ALTER TABLE ${slotbook_prefix}slot ADD COLUMN IF NOT EXISTS week_start TIMESTAMP(6) WITH TIME ZONE;
ALTER TABLE ${slotbook_prefix}slot ADD COLUMN IF NOT EXISTS week_end TIMESTAMP(6) WITH TIME ZONE;
-- The buffer applied to the slot's booked students too (their next session starts after it).
ALTER TABLE ${slotbook_prefix}slot ADD COLUMN IF NOT EXISTS buffer_students BOOLEAN NOT NULL DEFAULT FALSE;
-- lessons: the class type a package must cover, the credits a booking costs, the weekly series
ALTER TABLE ${slotbook_prefix}slot ADD COLUMN IF NOT EXISTS class_type VARCHAR(32);
ALTER TABLE ${slotbook_prefix}slot ADD COLUMN IF NOT EXISTS cost INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ${slotbook_prefix}slot ADD COLUMN IF NOT EXISTS series_id VARCHAR(64);
CREATE INDEX IF NOT EXISTS ${slotbook_prefix}slot_series_ix ON ${slotbook_prefix}slot (tenant_id, series_id, starts_at);

-- One row per seat. A seat is FREE, HELD (until held_until), CONFIRMED, or CLOSED (slot cancelled).
CREATE TABLE IF NOT EXISTS ${slotbook_prefix}slot_seat (
    tenant_id   VARCHAR(64) NOT NULL,
    slot_id     VARCHAR(64) NOT NULL,
    seq         INTEGER     NOT NULL,
    status      VARCHAR(16) NOT NULL,
    booking_id  VARCHAR(64),
    student_id  VARCHAR(64),
    held_until  TIMESTAMP(6) WITH TIME ZONE,
    CONSTRAINT ${slotbook_prefix}slot_seat_pk PRIMARY KEY (tenant_id, slot_id, seq),
    CONSTRAINT ${slotbook_prefix}slot_seat_student_uk UNIQUE (tenant_id, slot_id, student_id),
    CONSTRAINT ${slotbook_prefix}slot_seat_status_ck CHECK (status IN ('FREE', 'HELD', 'CONFIRMED', 'CLOSED')),
    CONSTRAINT ${slotbook_prefix}slot_seat_owner_ck CHECK (
        (status IN ('FREE', 'CLOSED') AND booking_id IS NULL AND student_id IS NULL)
        OR (status IN ('HELD', 'CONFIRMED') AND booking_id IS NOT NULL AND student_id IS NOT NULL
            AND held_until IS NOT NULL))
);
CREATE INDEX IF NOT EXISTS ${slotbook_prefix}slot_seat_claim_ix ON ${slotbook_prefix}slot_seat (tenant_id, slot_id, status, seq);
CREATE INDEX IF NOT EXISTS ${slotbook_prefix}slot_seat_held_ix ON ${slotbook_prefix}slot_seat (tenant_id, slot_id, status, held_until);

CREATE TABLE IF NOT EXISTS ${slotbook_prefix}booking (
    tenant_id   VARCHAR(64) NOT NULL,
    booking_id  VARCHAR(64) NOT NULL,
    request_id  VARCHAR(64) NOT NULL,
    slot_id     VARCHAR(64) NOT NULL,
    student_id  VARCHAR(64) NOT NULL,
    seat        INTEGER     NOT NULL,
    status      VARCHAR(16) NOT NULL,
    held_until  TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    created_at  TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    updated_at  TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    late_cancel BOOLEAN     NOT NULL DEFAULT FALSE,
    package_id  VARCHAR(64),
    credits     INTEGER     NOT NULL DEFAULT 0,
    attendance  VARCHAR(16) NOT NULL DEFAULT 'NONE',
    CONSTRAINT ${slotbook_prefix}booking_pk PRIMARY KEY (tenant_id, booking_id),
    CONSTRAINT ${slotbook_prefix}booking_credits_ck CHECK ((credits > 0) = (package_id IS NOT NULL) AND credits >= 0),
    CONSTRAINT ${slotbook_prefix}booking_attendance_ck CHECK (attendance IN ('NONE', 'CHECKED_IN', 'NO_SHOW')),
    CONSTRAINT ${slotbook_prefix}booking_request_uk UNIQUE (tenant_id, request_id),
    CONSTRAINT ${slotbook_prefix}booking_status_ck CHECK (status IN ('HELD', 'CONFIRMED', 'CANCELLED', 'EXPIRED'))
);
ALTER TABLE ${slotbook_prefix}booking ADD COLUMN IF NOT EXISTS late_cancel BOOLEAN NOT NULL DEFAULT FALSE;
-- lessons: the package that paid, the credits the booking holds of it now, whether the student came
ALTER TABLE ${slotbook_prefix}booking ADD COLUMN IF NOT EXISTS package_id VARCHAR(64);
ALTER TABLE ${slotbook_prefix}booking ADD COLUMN IF NOT EXISTS credits INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ${slotbook_prefix}booking ADD COLUMN IF NOT EXISTS attendance VARCHAR(16) NOT NULL DEFAULT 'NONE';
ALTER TABLE ${slotbook_prefix}booking ADD CONSTRAINT IF NOT EXISTS ${slotbook_prefix}booking_credits_ck
    CHECK ((credits > 0) = (package_id IS NOT NULL) AND credits >= 0);
ALTER TABLE ${slotbook_prefix}booking ADD CONSTRAINT IF NOT EXISTS ${slotbook_prefix}booking_attendance_ck
    CHECK (attendance IN ('NONE', 'CHECKED_IN', 'NO_SHOW'));
CREATE INDEX IF NOT EXISTS ${slotbook_prefix}booking_unattended_ix
    ON ${slotbook_prefix}booking (tenant_id, status, attendance, slot_id);
CREATE INDEX IF NOT EXISTS ${slotbook_prefix}booking_slot_ix ON ${slotbook_prefix}booking (tenant_id, slot_id, student_id);
CREATE INDEX IF NOT EXISTS ${slotbook_prefix}booking_held_ix ON ${slotbook_prefix}booking (tenant_id, status, held_until);

-- Who is busy when: coach and room of a slot (booking_id NULL) and the student of a booking.
CREATE TABLE IF NOT EXISTS ${slotbook_prefix}occupancy (
    id            BIGINT GENERATED BY DEFAULT AS IDENTITY,
    tenant_id     VARCHAR(64) NOT NULL,
    resource_kind VARCHAR(8)  NOT NULL,
    resource_id   VARCHAR(64) NOT NULL,
    starts_at     TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    ends_at       TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    slot_id       VARCHAR(64) NOT NULL,
    booking_id    VARCHAR(64),
    active        BOOLEAN     NOT NULL,
    CONSTRAINT ${slotbook_prefix}occupancy_pk PRIMARY KEY (id),
    CONSTRAINT ${slotbook_prefix}occupancy_time_ck CHECK (starts_at < ends_at)
);
CREATE INDEX IF NOT EXISTS ${slotbook_prefix}occupancy_overlap_ix
    ON ${slotbook_prefix}occupancy (tenant_id, resource_kind, resource_id, active, starts_at, ends_at);
CREATE INDEX IF NOT EXISTS ${slotbook_prefix}occupancy_booking_ix ON ${slotbook_prefix}occupancy (tenant_id, booking_id);
CREATE INDEX IF NOT EXISTS ${slotbook_prefix}occupancy_slot_ix ON ${slotbook_prefix}occupancy (tenant_id, slot_id);

CREATE TABLE IF NOT EXISTS ${slotbook_prefix}resource_lock (
    tenant_id     VARCHAR(64) NOT NULL,
    resource_kind VARCHAR(8)  NOT NULL,
    resource_id   VARCHAR(64) NOT NULL,
    CONSTRAINT ${slotbook_prefix}resource_lock_pk PRIMARY KEY (tenant_id, resource_kind, resource_id)
);

-- The waitlist of a slot: one entry per request, in join order (seq). A promotion gives the entry's
-- booking_id a seat; WAITING entries are SKIPPED (with the reason) when they cannot take one.
CREATE TABLE IF NOT EXISTS ${slotbook_prefix}waiter (
    tenant_id   VARCHAR(64) NOT NULL,
    request_id  VARCHAR(64) NOT NULL,
    slot_id     VARCHAR(64) NOT NULL,
    student_id  VARCHAR(64) NOT NULL,
    booking_id  VARCHAR(64) NOT NULL,
    seq         BIGINT GENERATED BY DEFAULT AS IDENTITY,
    status      VARCHAR(16) NOT NULL,
    reason      VARCHAR(16),
    joined_at   TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    updated_at  TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    CONSTRAINT ${slotbook_prefix}waiter_pk PRIMARY KEY (tenant_id, request_id),
    CONSTRAINT ${slotbook_prefix}waiter_status_ck CHECK (status IN ('WAITING', 'PROMOTED', 'LEFT', 'SKIPPED')),
    CONSTRAINT ${slotbook_prefix}waiter_reason_ck CHECK (reason IN ('CONFLICT', 'LIMIT', 'ALREADY_BOOKED', 'NO_CREDITS'))
);
-- Schemas created before lessons: a waiter is also skipped when no package of his can pay (NO_CREDITS).
ALTER TABLE ${slotbook_prefix}waiter DROP CONSTRAINT IF EXISTS ${slotbook_prefix}waiter_reason_ck;
ALTER TABLE ${slotbook_prefix}waiter ADD CONSTRAINT ${slotbook_prefix}waiter_reason_ck
    CHECK (reason IN ('CONFLICT', 'LIMIT', 'ALREADY_BOOKED', 'NO_CREDITS'));
CREATE INDEX IF NOT EXISTS ${slotbook_prefix}waiter_slot_ix ON ${slotbook_prefix}waiter (tenant_id, slot_id, status, seq);
CREATE INDEX IF NOT EXISTS ${slotbook_prefix}waiter_student_ix ON ${slotbook_prefix}waiter (tenant_id, slot_id, student_id, status);

-- Lesson packages: credits granted to a student, remaining = what is not drawn yet (never below 0).
-- class_types: the class types it pays for, sorted and joined by ',' ('' : any session).
CREATE TABLE IF NOT EXISTS ${slotbook_prefix}lesson_package (
    tenant_id   VARCHAR(64) NOT NULL,
    package_id  VARCHAR(64) NOT NULL,
    student_id  VARCHAR(64) NOT NULL,
    credits     INTEGER     NOT NULL,
    remaining   INTEGER     NOT NULL,
    valid_from  TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    valid_until TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    class_types VARCHAR(700) NOT NULL DEFAULT '',
    granted_at  TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    CONSTRAINT ${slotbook_prefix}lesson_package_pk PRIMARY KEY (tenant_id, package_id),
    CONSTRAINT ${slotbook_prefix}lesson_package_credits_ck CHECK (credits > 0),
    CONSTRAINT ${slotbook_prefix}lesson_package_remaining_ck CHECK (remaining >= 0 AND remaining <= credits),
    CONSTRAINT ${slotbook_prefix}lesson_package_valid_ck CHECK (valid_from < valid_until)
);
CREATE INDEX IF NOT EXISTS ${slotbook_prefix}lesson_package_student_ix
    ON ${slotbook_prefix}lesson_package (tenant_id, student_id, valid_until, package_id);

-- The credit journal, append-only; seq orders the entries as written. At most one entry of each
-- reason per booking (NULL booking ids, the GRANTs, are distinct in a unique constraint).
CREATE TABLE IF NOT EXISTS ${slotbook_prefix}credit_entry (
    seq         BIGINT GENERATED BY DEFAULT AS IDENTITY,
    tenant_id   VARCHAR(64) NOT NULL,
    package_id  VARCHAR(64) NOT NULL,
    reason      VARCHAR(8)  NOT NULL,
    delta       INTEGER     NOT NULL,
    booking_id  VARCHAR(64),
    request_id  VARCHAR(64),
    at          TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    CONSTRAINT ${slotbook_prefix}credit_entry_pk PRIMARY KEY (seq),
    CONSTRAINT ${slotbook_prefix}credit_entry_booking_uk UNIQUE (tenant_id, booking_id, reason),
    CONSTRAINT ${slotbook_prefix}credit_entry_reason_ck CHECK (reason IN ('GRANT', 'DRAW', 'REFUND', 'FORFEIT')),
    CONSTRAINT ${slotbook_prefix}credit_entry_delta_ck CHECK (
        (reason IN ('GRANT', 'REFUND') AND delta > 0) OR (reason IN ('DRAW', 'FORFEIT') AND delta < 0)),
    CONSTRAINT ${slotbook_prefix}credit_entry_booking_ck CHECK ((reason = 'GRANT') = (booking_id IS NULL))
);
CREATE INDEX IF NOT EXISTS ${slotbook_prefix}credit_entry_package_ix ON ${slotbook_prefix}credit_entry (tenant_id, package_id, seq);

-- Slotbook decision routines for H2 2.x, run after schema-h2.sql.
-- ${slotbook_prefix} is the table prefix (default slotbook_); this migration names it slotbook_prefix.
-- The decision routines (org.slotbook.jdbc.internal.H2Routines): one Java method serves every prefix, so each takes the
-- table prefix as its first SQL argument, e.g. CALL ${slotbook_prefix}hold('${slotbook_prefix}', ...). Each answers
-- with the contract's fact rows. Plain SQL: Flyway runs these as they are.
CREATE ALIAS IF NOT EXISTS ${slotbook_prefix}schedule FOR 'org.slotbook.jdbc.internal.H2Routines.schedule';
CREATE ALIAS IF NOT EXISTS ${slotbook_prefix}hold FOR 'org.slotbook.jdbc.internal.H2Routines.hold';
CREATE ALIAS IF NOT EXISTS ${slotbook_prefix}confirm FOR 'org.slotbook.jdbc.internal.H2Routines.confirm';
CREATE ALIAS IF NOT EXISTS ${slotbook_prefix}cancel FOR 'org.slotbook.jdbc.internal.H2Routines.cancel';
CREATE ALIAS IF NOT EXISTS ${slotbook_prefix}cancel_slot FOR 'org.slotbook.jdbc.internal.H2Routines.cancelSlot';
CREATE ALIAS IF NOT EXISTS ${slotbook_prefix}expire_due FOR 'org.slotbook.jdbc.internal.H2Routines.expireDue';
CREATE ALIAS IF NOT EXISTS ${slotbook_prefix}leave_waitlist FOR 'org.slotbook.jdbc.internal.H2Routines.leaveWaitlist';
CREATE ALIAS IF NOT EXISTS ${slotbook_prefix}grant_package FOR 'org.slotbook.jdbc.internal.H2Routines.grantPackage';
CREATE ALIAS IF NOT EXISTS ${slotbook_prefix}check_in FOR 'org.slotbook.jdbc.internal.H2Routines.checkIn';
CREATE ALIAS IF NOT EXISTS ${slotbook_prefix}schedule_series FOR 'org.slotbook.jdbc.internal.H2Routines.scheduleSeries';
CREATE ALIAS IF NOT EXISTS ${slotbook_prefix}cancel_series FOR 'org.slotbook.jdbc.internal.H2Routines.cancelSeries';
CREATE ALIAS IF NOT EXISTS ${slotbook_prefix}hold_all FOR 'org.slotbook.jdbc.internal.H2Routines.holdAll';
