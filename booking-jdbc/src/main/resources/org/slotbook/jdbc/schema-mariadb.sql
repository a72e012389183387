-- Slotbook ledger schema for MariaDB 10.6+ (tested on 10.11) and MySQL 8: the tables. The decision
-- procedures are in routines-mariadb.sql, run after this file.
-- ${prefix} is the table prefix (default slotbook_); Flyway users define the placeholder "prefix".
-- Every statement is idempotent. Times are UTC instants stored in DATETIME(6) (microseconds);
-- the library writes and reads them as UTC, whatever the session time zone.
-- Ids compare byte for byte (utf8mb4_bin): 'A' and 'a' are two different ids.

CREATE TABLE IF NOT EXISTS ${prefix}slot (
    tenant_id   VARCHAR(64) NOT NULL,
    slot_id     VARCHAR(64) NOT NULL,
    coach_id    VARCHAR(64) NOT NULL,
    room_id     VARCHAR(64) NOT NULL,
    starts_at   DATETIME(6) NOT NULL,
    ends_at     DATETIME(6) NOT NULL,
    capacity    INT         NOT NULL,
    status      VARCHAR(16) NOT NULL,
    -- the booking window (NULL: open from scheduling on, until the session ends)
    opens_at    DATETIME(6),
    closes_at   DATETIME(6),
    -- coach and room turnover after the session: their occupations end buffer_seconds later
    buffer_seconds INT      NOT NULL DEFAULT 0,
    -- the slot's own cancel policy (NULL: the tenant's) and its cutoff before the start
    cancel_policy VARCHAR(8),
    cancel_cutoff_seconds INT,
    -- the week the slot counts in for a weekly limit, in the tenant's zone
    week_start  DATETIME(6),
    week_end    DATETIME(6),
    -- TRUE: a booked student is taken until the end plus the buffer too, not only the coach and room
    buffer_students BOOLEAN NOT NULL DEFAULT FALSE,
    -- lessons: the class type a package must cover (NULL: none), the credits a booking costs, the series
    class_type  VARCHAR(32),
    cost        INT         NOT NULL DEFAULT 0,
    series_id   VARCHAR(64),
    PRIMARY KEY (tenant_id, slot_id),
    KEY ${prefix}slot_series_ix (tenant_id, series_id, starts_at),
    CONSTRAINT ${prefix}slot_time_ck CHECK (starts_at < ends_at),
    CONSTRAINT ${prefix}slot_capacity_ck CHECK (capacity > 0),
    CONSTRAINT ${prefix}slot_status_ck CHECK (status IN ('OPEN', 'CANCELLED')),
    CONSTRAINT ${prefix}slot_cancel_policy_ck CHECK (cancel_policy IN ('FREE', 'REFUSE', 'LATE'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- A schema created before the booking rules gets their columns.
ALTER TABLE ${prefix}slot
    ADD COLUMN IF NOT EXISTS opens_at DATETIME(6),
    ADD COLUMN IF NOT EXISTS closes_at DATETIME(6),
    ADD COLUMN IF NOT EXISTS buffer_seconds INT NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS cancel_policy VARCHAR(8) CHECK (cancel_policy IN ('FREE', 'REFUSE', 'LATE')),
    ADD COLUMN IF NOT EXISTS cancel_cutoff_seconds INT,
    ADD COLUMN IF NOT EXISTS week_start DATETIME(6),
    ADD COLUMN IF NOT EXISTS week_end DATETIME(6),
    ADD COLUMN IF NOT EXISTS buffer_students BOOLEAN NOT NULL DEFAULT FALSE,
    ADD COLUMN IF NOT EXISTS class_type VARCHAR(32),
    ADD COLUMN IF NOT EXISTS cost INT NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS series_id VARCHAR(64);
CREATE INDEX IF NOT EXISTS ${prefix}slot_series_ix ON ${prefix}slot (tenant_id, series_id, starts_at);

-- One row per seat. A seat is FREE, HELD (until held_until), CONFIRMED, or CLOSED (slot cancelled).
-- The owner (booking, student) lives on the row, so taking a seat is a locked read and an update by key.
CREATE TABLE IF NOT EXISTS ${prefix}slot_seat (
    tenant_id   VARCHAR(64) NOT NULL,
    slot_id     VARCHAR(64) NOT NULL,
    seq         INT         NOT NULL,
    status      VARCHAR(16) NOT NULL,
    booking_id  VARCHAR(64),
    student_id  VARCHAR(64),
    held_until  DATETIME(6),
    PRIMARY KEY (tenant_id, slot_id, seq),
    UNIQUE KEY ${prefix}slot_seat_student_uk (tenant_id, slot_id, student_id),
    -- The claim's index: without it the optimizer may pick the student key and sort a whole hot slot.
    KEY ${prefix}slot_seat_claim_ix (tenant_id, slot_id, status, seq),
    KEY ${prefix}slot_seat_held_ix (tenant_id, slot_id, status, held_until),
    CONSTRAINT ${prefix}slot_seat_status_ck CHECK (status IN ('FREE', 'HELD', 'CONFIRMED', 'CLOSED')),
    CONSTRAINT ${prefix}slot_seat_owner_ck CHECK (
        (status IN ('FREE', 'CLOSED') AND booking_id IS NULL AND student_id IS NULL)
        OR (status IN ('HELD', 'CONFIRMED') AND booking_id IS NOT NULL AND student_id IS NOT NULL
            AND held_until IS NOT NULL))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE IF NOT EXISTS ${prefix}booking (
    tenant_id   VARCHAR(64) NOT NULL,
    booking_id  VARCHAR(64) NOT NULL,
    request_id  VARCHAR(64) NOT NULL,
    slot_id     VARCHAR(64) NOT NULL,
    student_id  VARCHAR(64) NOT NULL,
    seat        INT         NOT NULL,
    status      VARCHAR(16) NOT NULL,
    held_until  DATETIME(6) NOT NULL,
    created_at  DATETIME(6) NOT NULL,
    updated_at  DATETIME(6) NOT NULL,
    -- TRUE when the booking was cancelled after its cancel cutoff
    late_cancel BOOLEAN     NOT NULL DEFAULT FALSE,
    -- lessons: the package that paid, the credits the booking holds of it now, whether the student came
    package_id  VARCHAR(64),
    credits     INT         NOT NULL DEFAULT 0,
    attendance  VARCHAR(16) NOT NULL DEFAULT 'NONE',
    PRIMARY KEY (tenant_id, booking_id),
    KEY ${prefix}booking_unattended_ix (tenant_id, status, attendance, slot_id),
    CONSTRAINT ${prefix}booking_credits_ck CHECK ((credits > 0) = (package_id IS NOT NULL) AND credits >= 0),
    CONSTRAINT ${prefix}booking_attendance_ck CHECK (attendance IN ('NONE', 'CHECKED_IN', 'NO_SHOW')),
    UNIQUE KEY ${prefix}booking_request_uk (tenant_id, request_id),
    KEY ${prefix}booking_slot_ix (tenant_id, slot_id, student_id),
    KEY ${prefix}booking_held_ix (tenant_id, status, held_until),
    CONSTRAINT ${prefix}booking_status_ck CHECK (status IN ('HELD', 'CONFIRMED', 'CANCELLED', 'EXPIRED'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

ALTER TABLE ${prefix}booking ADD COLUMN IF NOT EXISTS late_cancel BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE ${prefix}booking
    ADD COLUMN IF NOT EXISTS package_id VARCHAR(64),
    ADD COLUMN IF NOT EXISTS credits INT NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS attendance VARCHAR(16) NOT NULL DEFAULT 'NONE';
ALTER TABLE ${prefix}booking ADD CONSTRAINT IF NOT EXISTS ${prefix}booking_credits_ck
    CHECK ((credits > 0) = (package_id IS NOT NULL) AND credits >= 0);
ALTER TABLE ${prefix}booking ADD CONSTRAINT IF NOT EXISTS ${prefix}booking_attendance_ck
    CHECK (attendance IN ('NONE', 'CHECKED_IN', 'NO_SHOW'));
CREATE INDEX IF NOT EXISTS ${prefix}booking_unattended_ix ON ${prefix}booking (tenant_id, status, attendance, slot_id);

-- Who is busy when: coach and room of a slot (booking_id NULL) and the student of a booking.
-- Released rows (active = FALSE) stay as history.
CREATE TABLE IF NOT EXISTS ${prefix}occupancy (
    id            BIGINT      NOT NULL AUTO_INCREMENT,
    tenant_id     VARCHAR(64) NOT NULL,
    resource_kind VARCHAR(8)  NOT NULL,
    resource_id   VARCHAR(64) NOT NULL,
    starts_at     DATETIME(6) NOT NULL,
    ends_at       DATETIME(6) NOT NULL,
    slot_id       VARCHAR(64) NOT NULL,
    booking_id    VARCHAR(64),
    active        BOOLEAN     NOT NULL,
    PRIMARY KEY (id, tenant_id),
    -- Serves starts_at < :end AND ends_at > :start AND starts_at > :start - :longestSession.
    KEY ${prefix}occupancy_overlap_ix (tenant_id, resource_kind, resource_id, active, starts_at, ends_at),
    KEY ${prefix}occupancy_booking_ix (tenant_id, booking_id),
    KEY ${prefix}occupancy_slot_ix (tenant_id, slot_id),
    CONSTRAINT ${prefix}occupancy_time_ck CHECK (starts_at < ends_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- One row per coach, room or student, locked (SELECT ... FOR UPDATE) before its occupancy is checked.
CREATE TABLE IF NOT EXISTS ${prefix}resource_lock (
    tenant_id     VARCHAR(64) NOT NULL,
    resource_kind VARCHAR(8)  NOT NULL,
    resource_id   VARCHAR(64) NOT NULL,
    PRIMARY KEY (tenant_id, resource_kind, resource_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;


-- The waitlist of a full slot: one row per waitlisted request, in join order (seq). A freed seat goes
-- to the first WAITING entry that can take it (PROMOTED, with the booking id kept here); those passed
-- over are SKIPPED with the reason; LEFT is a student who left the list.
CREATE TABLE IF NOT EXISTS ${prefix}waiter (
    tenant_id   VARCHAR(64) NOT NULL,
    request_id  VARCHAR(64) NOT NULL,
    slot_id     VARCHAR(64) NOT NULL,
    student_id  VARCHAR(64) NOT NULL,
    booking_id  VARCHAR(64) NOT NULL,
    seq         BIGINT      NOT NULL AUTO_INCREMENT,
    status      VARCHAR(16) NOT NULL,
    reason      VARCHAR(16),
    joined_at   DATETIME(6) NOT NULL,
    updated_at  DATETIME(6) NOT NULL,
    PRIMARY KEY (tenant_id, request_id),
    UNIQUE KEY ${prefix}waiter_seq_tenant_uk (seq, tenant_id),
    -- the WAITING entries of a slot in join order (promotion, positions)
    KEY ${prefix}waiter_slot_ix (tenant_id, slot_id, status, seq),
    -- a student's entry of a slot
    KEY ${prefix}waiter_student_ix (tenant_id, slot_id, student_id, status),
    CONSTRAINT ${prefix}waiter_status_ck CHECK (status IN ('WAITING', 'PROMOTED', 'LEFT', 'SKIPPED')),
    CONSTRAINT ${prefix}waiter_reason_ck CHECK (reason IN ('CONFLICT', 'LIMIT', 'ALREADY_BOOKED', 'NO_CREDITS'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
-- Schemas created before lessons: a waiter is also skipped when no package of his can pay (NO_CREDITS).
ALTER TABLE ${prefix}waiter DROP CONSTRAINT IF EXISTS ${prefix}waiter_reason_ck;
ALTER TABLE ${prefix}waiter ADD CONSTRAINT ${prefix}waiter_reason_ck
    CHECK (reason IN ('CONFLICT', 'LIMIT', 'ALREADY_BOOKED', 'NO_CREDITS'));

-- Lesson packages: credits granted to a student, remaining = what is not drawn yet (never below 0).
-- class_types: the class types it pays for, sorted and joined by ',' ('' : any session). Every change
-- of remaining writes a credit_entry row in the same transaction, so the journal sums to it.
CREATE TABLE IF NOT EXISTS ${prefix}lesson_package (
    tenant_id   VARCHAR(64) NOT NULL,
    package_id  VARCHAR(64) NOT NULL,
    student_id  VARCHAR(64) NOT NULL,
    credits     INT         NOT NULL,
    remaining   INT         NOT NULL,
    valid_from  DATETIME(6) NOT NULL,
    valid_until DATETIME(6) NOT NULL,
    class_types VARCHAR(700) NOT NULL DEFAULT '',
    granted_at  DATETIME(6) NOT NULL,
    PRIMARY KEY (tenant_id, package_id),
    KEY ${prefix}lesson_package_student_ix (tenant_id, student_id, valid_until, package_id),
    CONSTRAINT ${prefix}lesson_package_credits_ck CHECK (credits > 0),
    CONSTRAINT ${prefix}lesson_package_remaining_ck CHECK (remaining >= 0 AND remaining <= credits),
    CONSTRAINT ${prefix}lesson_package_valid_ck CHECK (valid_from < valid_until)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- The credit journal, append-only: GRANT (+credits), DRAW and FORFEIT (-cost), REFUND (+credits held).
-- seq orders the entries as they were written. At most one entry of each reason per booking (NULL
-- booking ids, the GRANTs, are distinct in a unique key).
CREATE TABLE IF NOT EXISTS ${prefix}credit_entry (
    seq         BIGINT      NOT NULL AUTO_INCREMENT,
    tenant_id   VARCHAR(64) NOT NULL,
    package_id  VARCHAR(64) NOT NULL,
    reason      VARCHAR(8)  NOT NULL,
    delta       INT         NOT NULL,
    booking_id  VARCHAR(64),
    request_id  VARCHAR(64),
    at          DATETIME(6) NOT NULL,
    PRIMARY KEY (seq, tenant_id),
    KEY ${prefix}credit_entry_package_ix (tenant_id, package_id, seq),
    UNIQUE KEY ${prefix}credit_entry_booking_uk (tenant_id, booking_id, reason),
    CONSTRAINT ${prefix}credit_entry_reason_ck CHECK (reason IN ('GRANT', 'DRAW', 'REFUND', 'FORFEIT')),
    CONSTRAINT ${prefix}credit_entry_delta_ck CHECK (
        (reason IN ('GRANT', 'REFUND') AND delta > 0) OR (reason IN ('DRAW', 'FORFEIT') AND delta < 0)),
    CONSTRAINT ${prefix}credit_entry_booking_ck CHECK ((reason = 'GRANT') = (booking_id IS NULL))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- The fence of a router's move (TenantMove): which tenants this database serves. No row: served (a
-- database that never took part in a move has none). FENCED: a move is copying the tenant away, or
-- into this database; MOVED: the tenant lives in another database now. Every decision of a tenant
-- FENCED or MOVED is refused (SQLSTATE SB002) and may be retried on the tenant's current shard. epoch
-- counts the moves of the tenant.
CREATE TABLE IF NOT EXISTS ${prefix}tenant_fence (
    tenant_id   VARCHAR(64) NOT NULL,
    epoch       BIGINT      NOT NULL,
    state       VARCHAR(8)  NOT NULL,
    updated_at  DATETIME(6) NOT NULL DEFAULT UTC_TIMESTAMP(6),
    PRIMARY KEY (tenant_id),
    CONSTRAINT ${prefix}tenant_fence_state_ck CHECK (state IN ('OWNED', 'FENCED', 'MOVED'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Schemas created before every key held tenant_id: the waitlist's unique seq, and the keys of occupancy and
-- credit_entry by their AUTO_INCREMENT alone, gain the tenant (each key rebuilt once, its table locked meanwhile).
ALTER TABLE ${prefix}waiter ADD UNIQUE KEY IF NOT EXISTS ${prefix}waiter_seq_tenant_uk (seq, tenant_id),
    DROP INDEX IF EXISTS ${prefix}waiter_seq_uk;
DELIMITER //
BEGIN NOT ATOMIC
    IF NOT EXISTS (SELECT 1 FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE()
                   AND TABLE_NAME = '${prefix}occupancy' AND INDEX_NAME = 'PRIMARY' AND COLUMN_NAME = 'tenant_id') THEN
        ALTER TABLE ${prefix}occupancy DROP PRIMARY KEY, ADD PRIMARY KEY (id, tenant_id);
    END IF;
    IF NOT EXISTS (SELECT 1 FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE()
                   AND TABLE_NAME = '${prefix}credit_entry' AND INDEX_NAME = 'PRIMARY' AND COLUMN_NAME = 'tenant_id') THEN
        ALTER TABLE ${prefix}credit_entry DROP PRIMARY KEY, ADD PRIMARY KEY (seq, tenant_id);
    END IF;
END//
DELIMITER ;

-- The outbox (see schema-postgresql.sql): the events every decision writes in its own call, the
-- tenant's sequencing head and relay lease, and the cursors of pull consumers.
CREATE TABLE IF NOT EXISTS ${prefix}event (
    tenant_id       VARCHAR(64) NOT NULL,
    event_id        BIGINT      NOT NULL AUTO_INCREMENT,
    pos             BIGINT,
    kind            VARCHAR(16) NOT NULL,
    booking_id      VARCHAR(64) NOT NULL,
    request_id      VARCHAR(64) NOT NULL,
    slot_id         VARCHAR(64) NOT NULL,
    student_id      VARCHAR(64) NOT NULL,
    seat            INT         NOT NULL,
    status          VARCHAR(16) NOT NULL,
    held_until      DATETIME(6) NOT NULL,
    created_at      DATETIME(6) NOT NULL,
    updated_at      DATETIME(6) NOT NULL,
    package_id      VARCHAR(64),
    credits         INT         NOT NULL DEFAULT 0,
    attendance      VARCHAR(16) NOT NULL DEFAULT 'NONE',
    written_at      DATETIME(6) NOT NULL,
    state           VARCHAR(16) NOT NULL DEFAULT 'PENDING',
    attempts        INT         NOT NULL DEFAULT 0,
    next_attempt_at DATETIME(6),
    last_error      VARCHAR(500),
    delivered_at    DATETIME(6),
    delivered_by    VARCHAR(64),
    PRIMARY KEY (event_id, tenant_id),
    KEY ${prefix}event_position_ix (tenant_id, pos, event_id),
    KEY ${prefix}event_pending_ix (state, tenant_id, booking_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE IF NOT EXISTS ${prefix}event_head (
    tenant_id     VARCHAR(64) NOT NULL,
    last_pos      BIGINT      NOT NULL DEFAULT 0,
    settled_pos   BIGINT      NOT NULL DEFAULT 0,
    dead_count    BIGINT      NOT NULL DEFAULT 0,
    lease_owner   VARCHAR(64),
    lease_until   DATETIME(6),
    PRIMARY KEY (tenant_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE IF NOT EXISTS ${prefix}event_cursor (
    tenant_id   VARCHAR(64) NOT NULL,
    consumer    VARCHAR(64) NOT NULL,
    pos         BIGINT      NOT NULL,
    updated_at  DATETIME(6) NOT NULL,
    PRIMARY KEY (tenant_id, consumer)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
