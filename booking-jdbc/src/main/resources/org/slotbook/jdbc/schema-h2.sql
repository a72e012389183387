-- Slotbook ledger schema for H2 2.x (embedded; tests and small deployments).
-- ${prefix} is the table prefix (default slotbook_); Flyway users define the placeholder "prefix".
-- Every statement is idempotent. Times are UTC instants (TIMESTAMP(6) WITH TIME ZONE).

CREATE TABLE IF NOT EXISTS ${prefix}slot (
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
    CONSTRAINT ${prefix}slot_pk PRIMARY KEY (tenant_id, slot_id),
    CONSTRAINT ${prefix}slot_time_ck CHECK (starts_at < ends_at),
    CONSTRAINT ${prefix}slot_capacity_ck CHECK (capacity > 0),
    CONSTRAINT ${prefix}slot_status_ck CHECK (status IN ('OPEN', 'CANCELLED'))
);
-- The booking rules of a slot, added to a schema created before them.
ALTER TABLE ${prefix}slot ADD COLUMN IF NOT EXISTS opens_at TIMESTAMP(6) WITH TIME ZONE;
ALTER TABLE ${prefix}slot ADD COLUMN IF NOT EXISTS closes_at TIMESTAMP(6) WITH TIME ZONE;
ALTER TABLE ${prefix}slot ADD COLUMN IF NOT EXISTS buffer_seconds INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ${prefix}slot ADD COLUMN IF NOT EXISTS cancel_policy VARCHAR(8)
    CHECK (cancel_policy IN ('FREE', 'REFUSE', 'LATE'));
ALTER TABLE ${prefix}slot ADD COLUMN IF NOT EXISTS cancel_cutoff_seconds INTEGER;
ALTER TABLE ${prefix}slot ADD COLUMN IF NOT EXISTS week_start TIMESTAMP(6) WITH TIME ZONE;
ALTER TABLE ${prefix}slot ADD COLUMN IF NOT EXISTS week_end TIMESTAMP(6) WITH TIME ZONE;
-- The buffer applied to the slot's booked students too (their next session starts after it).
ALTER TABLE ${prefix}slot ADD COLUMN IF NOT EXISTS buffer_students BOOLEAN NOT NULL DEFAULT FALSE;
-- lessons: the class type a package must cover, the credits a booking costs, the weekly series
ALTER TABLE ${prefix}slot ADD COLUMN IF NOT EXISTS class_type VARCHAR(32);
ALTER TABLE ${prefix}slot ADD COLUMN IF NOT EXISTS cost INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ${prefix}slot ADD COLUMN IF NOT EXISTS series_id VARCHAR(64);
CREATE INDEX IF NOT EXISTS ${prefix}slot_series_ix ON ${prefix}slot (tenant_id, series_id, starts_at);

-- One row per seat. A seat is FREE, HELD (until held_until), CONFIRMED, or CLOSED (slot cancelled).
CREATE TABLE IF NOT EXISTS ${prefix}slot_seat (
    tenant_id   VARCHAR(64) NOT NULL,
    slot_id     VARCHAR(64) NOT NULL,
    seq         INTEGER     NOT NULL,
    status      VARCHAR(16) NOT NULL,
    booking_id  VARCHAR(64),
    student_id  VARCHAR(64),
    held_until  TIMESTAMP(6) WITH TIME ZONE,
    CONSTRAINT ${prefix}slot_seat_pk PRIMARY KEY (tenant_id, slot_id, seq),
    CONSTRAINT ${prefix}slot_seat_student_uk UNIQUE (tenant_id, slot_id, student_id),
    -- also the seat's status check: a status other than these four fails both branches
    CONSTRAINT ${prefix}slot_seat_owner_ck CHECK (
        (status IN ('FREE', 'CLOSED') AND booking_id IS NULL AND student_id IS NULL)
        OR (status IN ('HELD', 'CONFIRMED') AND booking_id IS NOT NULL AND student_id IS NOT NULL
            AND held_until IS NOT NULL))
);
-- H2 checks each CHECK constraint of a row under a lock shared by every session, so the tables the
-- decisions write have one each (the seat's owner check covers its status); schemas created with
-- separate checks lose them here.
ALTER TABLE ${prefix}slot_seat DROP CONSTRAINT IF EXISTS ${prefix}slot_seat_status_ck;
CREATE INDEX IF NOT EXISTS ${prefix}slot_seat_claim_ix ON ${prefix}slot_seat (tenant_id, slot_id, status, seq);
CREATE INDEX IF NOT EXISTS ${prefix}slot_seat_held_ix ON ${prefix}slot_seat (tenant_id, slot_id, status, held_until);

CREATE TABLE IF NOT EXISTS ${prefix}booking (
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
    CONSTRAINT ${prefix}booking_pk PRIMARY KEY (tenant_id, booking_id),
    CONSTRAINT ${prefix}booking_request_uk UNIQUE (tenant_id, request_id)
);
ALTER TABLE ${prefix}booking ADD COLUMN IF NOT EXISTS late_cancel BOOLEAN NOT NULL DEFAULT FALSE;
-- lessons: the package that paid, the credits the booking holds of it now, whether the student came
ALTER TABLE ${prefix}booking ADD COLUMN IF NOT EXISTS package_id VARCHAR(64);
ALTER TABLE ${prefix}booking ADD COLUMN IF NOT EXISTS credits INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ${prefix}booking ADD COLUMN IF NOT EXISTS attendance VARCHAR(16) NOT NULL DEFAULT 'NONE';
-- One check of a booking row (see the seat's): its status, its attendance, and credits held exactly
-- when a package paid. Schemas created with three separate checks trade them for this one.
ALTER TABLE ${prefix}booking DROP CONSTRAINT IF EXISTS ${prefix}booking_status_ck;
ALTER TABLE ${prefix}booking DROP CONSTRAINT IF EXISTS ${prefix}booking_attendance_ck;
ALTER TABLE ${prefix}booking DROP CONSTRAINT IF EXISTS ${prefix}booking_credits_ck;
ALTER TABLE ${prefix}booking ADD CONSTRAINT IF NOT EXISTS ${prefix}booking_ck CHECK (
    status IN ('HELD', 'CONFIRMED', 'CANCELLED', 'EXPIRED')
    AND attendance IN ('NONE', 'CHECKED_IN', 'NO_SHOW')
    AND (credits > 0) = (package_id IS NOT NULL) AND credits >= 0);
CREATE INDEX IF NOT EXISTS ${prefix}booking_unattended_ix
    ON ${prefix}booking (tenant_id, status, attendance, slot_id);
CREATE INDEX IF NOT EXISTS ${prefix}booking_slot_ix ON ${prefix}booking (tenant_id, slot_id, student_id);
CREATE INDEX IF NOT EXISTS ${prefix}booking_held_ix ON ${prefix}booking (tenant_id, status, held_until);

-- Who is busy when: coach and room of a slot (booking_id NULL) and the student of a booking.
CREATE TABLE IF NOT EXISTS ${prefix}occupancy (
    id            BIGINT GENERATED BY DEFAULT AS IDENTITY,
    tenant_id     VARCHAR(64) NOT NULL,
    resource_kind VARCHAR(8)  NOT NULL,
    resource_id   VARCHAR(64) NOT NULL,
    starts_at     TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    ends_at       TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    slot_id       VARCHAR(64) NOT NULL,
    booking_id    VARCHAR(64),
    active        BOOLEAN     NOT NULL,
    CONSTRAINT ${prefix}occupancy_tenant_pk PRIMARY KEY (id, tenant_id),
    CONSTRAINT ${prefix}occupancy_time_ck CHECK (starts_at < ends_at)
);
-- Schemas created before every key held tenant_id: the key of the identity alone gives way to this one.
ALTER TABLE ${prefix}occupancy DROP CONSTRAINT IF EXISTS ${prefix}occupancy_pk;
ALTER TABLE ${prefix}occupancy ADD CONSTRAINT IF NOT EXISTS ${prefix}occupancy_tenant_pk PRIMARY KEY (id, tenant_id);
CREATE INDEX IF NOT EXISTS ${prefix}occupancy_overlap_ix
    ON ${prefix}occupancy (tenant_id, resource_kind, resource_id, active, starts_at, ends_at);
CREATE INDEX IF NOT EXISTS ${prefix}occupancy_booking_ix ON ${prefix}occupancy (tenant_id, booking_id);
CREATE INDEX IF NOT EXISTS ${prefix}occupancy_slot_ix ON ${prefix}occupancy (tenant_id, slot_id);

CREATE TABLE IF NOT EXISTS ${prefix}resource_lock (
    tenant_id     VARCHAR(64) NOT NULL,
    resource_kind VARCHAR(8)  NOT NULL,
    resource_id   VARCHAR(64) NOT NULL,
    CONSTRAINT ${prefix}resource_lock_pk PRIMARY KEY (tenant_id, resource_kind, resource_id)
);

-- The waitlist of a slot: one entry per request, in join order (seq). A promotion gives the entry's
-- booking_id a seat; WAITING entries are SKIPPED (with the reason) when they cannot take one.
CREATE TABLE IF NOT EXISTS ${prefix}waiter (
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
    CONSTRAINT ${prefix}waiter_pk PRIMARY KEY (tenant_id, request_id)
);
-- One check of a waitlist row: its status and the reason it was skipped. A waiter is also skipped when no
-- package of his can pay (NO_CREDITS); schemas created with a status and a reason check trade them for it.
ALTER TABLE ${prefix}waiter DROP CONSTRAINT IF EXISTS ${prefix}waiter_status_ck;
ALTER TABLE ${prefix}waiter DROP CONSTRAINT IF EXISTS ${prefix}waiter_reason_ck;
ALTER TABLE ${prefix}waiter ADD CONSTRAINT IF NOT EXISTS ${prefix}waiter_ck CHECK (
    status IN ('WAITING', 'PROMOTED', 'LEFT', 'SKIPPED')
    AND (reason IS NULL OR reason IN ('CONFLICT', 'LIMIT', 'ALREADY_BOOKED', 'NO_CREDITS')));
CREATE INDEX IF NOT EXISTS ${prefix}waiter_slot_ix ON ${prefix}waiter (tenant_id, slot_id, status, seq);
CREATE INDEX IF NOT EXISTS ${prefix}waiter_student_ix ON ${prefix}waiter (tenant_id, slot_id, student_id, status);

-- Lesson packages: credits granted to a student, remaining = what is not drawn yet (never below 0).
-- class_types: the class types it pays for, sorted and joined by ',' ('' : any session).
CREATE TABLE IF NOT EXISTS ${prefix}lesson_package (
    tenant_id   VARCHAR(64) NOT NULL,
    package_id  VARCHAR(64) NOT NULL,
    student_id  VARCHAR(64) NOT NULL,
    credits     INTEGER     NOT NULL,
    remaining   INTEGER     NOT NULL,
    valid_from  TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    valid_until TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    class_types VARCHAR(700) NOT NULL DEFAULT '',
    granted_at  TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    CONSTRAINT ${prefix}lesson_package_pk PRIMARY KEY (tenant_id, package_id),
    CONSTRAINT ${prefix}lesson_package_ck CHECK (
        credits > 0 AND remaining >= 0 AND remaining <= credits AND valid_from < valid_until)
);
-- One check of a package row; schemas created with three separate checks trade them for it.
ALTER TABLE ${prefix}lesson_package DROP CONSTRAINT IF EXISTS ${prefix}lesson_package_credits_ck;
ALTER TABLE ${prefix}lesson_package DROP CONSTRAINT IF EXISTS ${prefix}lesson_package_remaining_ck;
ALTER TABLE ${prefix}lesson_package DROP CONSTRAINT IF EXISTS ${prefix}lesson_package_valid_ck;
ALTER TABLE ${prefix}lesson_package ADD CONSTRAINT IF NOT EXISTS ${prefix}lesson_package_ck CHECK (
    credits > 0 AND remaining >= 0 AND remaining <= credits AND valid_from < valid_until);
CREATE INDEX IF NOT EXISTS ${prefix}lesson_package_student_ix
    ON ${prefix}lesson_package (tenant_id, student_id, valid_until, package_id);

-- The credit journal, append-only; seq orders the entries as written. At most one entry of each
-- reason per booking (NULL booking ids, the GRANTs, are distinct in a unique constraint).
CREATE TABLE IF NOT EXISTS ${prefix}credit_entry (
    seq         BIGINT GENERATED BY DEFAULT AS IDENTITY,
    tenant_id   VARCHAR(64) NOT NULL,
    package_id  VARCHAR(64) NOT NULL,
    reason      VARCHAR(8)  NOT NULL,
    delta       INTEGER     NOT NULL,
    booking_id  VARCHAR(64),
    request_id  VARCHAR(64),
    at          TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    CONSTRAINT ${prefix}credit_entry_tenant_pk PRIMARY KEY (seq, tenant_id),
    CONSTRAINT ${prefix}credit_entry_booking_uk UNIQUE (tenant_id, booking_id, reason),
    -- the reason, the sign of the delta by reason (a reason other than these four fails both branches),
    -- and a booking for every entry but a GRANT
    CONSTRAINT ${prefix}credit_entry_ck CHECK (
        ((reason IN ('GRANT', 'REFUND') AND delta > 0) OR (reason IN ('DRAW', 'FORFEIT') AND delta < 0))
        AND (reason = 'GRANT') = (booking_id IS NULL))
);
-- Schemas created before every key held tenant_id: the key of the identity alone gives way to this one.
ALTER TABLE ${prefix}credit_entry DROP CONSTRAINT IF EXISTS ${prefix}credit_entry_pk;
ALTER TABLE ${prefix}credit_entry ADD CONSTRAINT IF NOT EXISTS ${prefix}credit_entry_tenant_pk
    PRIMARY KEY (seq, tenant_id);
-- One check of a journal row; schemas created with three separate checks trade them for it.
ALTER TABLE ${prefix}credit_entry DROP CONSTRAINT IF EXISTS ${prefix}credit_entry_reason_ck;
ALTER TABLE ${prefix}credit_entry DROP CONSTRAINT IF EXISTS ${prefix}credit_entry_delta_ck;
ALTER TABLE ${prefix}credit_entry DROP CONSTRAINT IF EXISTS ${prefix}credit_entry_booking_ck;
ALTER TABLE ${prefix}credit_entry ADD CONSTRAINT IF NOT EXISTS ${prefix}credit_entry_ck CHECK (
    ((reason IN ('GRANT', 'REFUND') AND delta > 0) OR (reason IN ('DRAW', 'FORFEIT') AND delta < 0))
    AND (reason = 'GRANT') = (booking_id IS NULL));
CREATE INDEX IF NOT EXISTS ${prefix}credit_entry_package_ix ON ${prefix}credit_entry (tenant_id, package_id, seq);

-- The fence of a router's move (TenantMove): which tenants this database serves. No row: served (a
-- database that never took part in a move has none). FENCED: a move is copying the tenant away, or
-- into this database; MOVED: the tenant lives in another database now. Every decision of a tenant
-- FENCED or MOVED is refused (SQLSTATE SB002). epoch counts the moves of the tenant.
CREATE TABLE IF NOT EXISTS ${prefix}tenant_fence (
    tenant_id   VARCHAR(64) NOT NULL,
    epoch       BIGINT      NOT NULL,
    state       VARCHAR(8)  NOT NULL,
    updated_at  TIMESTAMP(6) WITH TIME ZONE DEFAULT CURRENT_TIMESTAMP(6) NOT NULL,
    CONSTRAINT ${prefix}tenant_fence_pk PRIMARY KEY (tenant_id),
    CONSTRAINT ${prefix}tenant_fence_state_ck CHECK (state IN ('OWNED', 'FENCED', 'MOVED'))
);

-- The outbox (see schema-postgresql.sql): the events every decision writes in its own call, the
-- tenant's sequencing head and relay lease, and the cursors of pull consumers.
CREATE TABLE IF NOT EXISTS ${prefix}event (
    tenant_id       VARCHAR(64) NOT NULL,
    event_id        BIGINT GENERATED BY DEFAULT AS IDENTITY,
    pos             BIGINT,
    kind            VARCHAR(16) NOT NULL,
    booking_id      VARCHAR(64) NOT NULL,
    request_id      VARCHAR(64) NOT NULL,
    slot_id         VARCHAR(64) NOT NULL,
    student_id      VARCHAR(64) NOT NULL,
    seat            INT         NOT NULL,
    status          VARCHAR(16) NOT NULL,
    held_until      TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    created_at      TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    updated_at      TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    package_id      VARCHAR(64),
    credits         INT         DEFAULT 0 NOT NULL,
    attendance      VARCHAR(16) DEFAULT 'NONE' NOT NULL,
    written_at      TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    state           VARCHAR(16) DEFAULT 'PENDING' NOT NULL,
    attempts        INT         DEFAULT 0 NOT NULL,
    next_attempt_at TIMESTAMP(6) WITH TIME ZONE,
    last_error      VARCHAR(500),
    delivered_at    TIMESTAMP(6) WITH TIME ZONE,
    delivered_by    VARCHAR(64),
    CONSTRAINT ${prefix}event_pk PRIMARY KEY (tenant_id, event_id)
);
CREATE INDEX IF NOT EXISTS ${prefix}event_position_ix ON ${prefix}event (tenant_id, pos, event_id);
CREATE INDEX IF NOT EXISTS ${prefix}event_pending_ix ON ${prefix}event (state, tenant_id, booking_id);

CREATE TABLE IF NOT EXISTS ${prefix}event_head (
    tenant_id     VARCHAR(64) NOT NULL,
    last_pos      BIGINT      DEFAULT 0 NOT NULL,
    settled_pos   BIGINT      DEFAULT 0 NOT NULL,
    dead_count    BIGINT      DEFAULT 0 NOT NULL,
    lease_owner   VARCHAR(64),
    lease_until   TIMESTAMP(6) WITH TIME ZONE,
    CONSTRAINT ${prefix}event_head_pk PRIMARY KEY (tenant_id)
);

CREATE TABLE IF NOT EXISTS ${prefix}event_cursor (
    tenant_id   VARCHAR(64) NOT NULL,
    consumer    VARCHAR(64) NOT NULL,
    pos         BIGINT      NOT NULL,
    updated_at  TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    CONSTRAINT ${prefix}event_cursor_pk PRIMARY KEY (tenant_id, consumer)
);
