-- Slotbook ledger schema for PostgreSQL 15+: the tables. The decision functions are in
-- routines-postgresql.sql, run after this file.
-- ${prefix} is the table prefix (default slotbook_); Flyway users define the placeholder "prefix".
-- Every statement is idempotent. Times are UTC instants (timestamptz, microseconds).

CREATE TABLE IF NOT EXISTS ${prefix}slot (
    tenant_id   VARCHAR(64) COLLATE "C" NOT NULL,
    slot_id     VARCHAR(64) COLLATE "C" NOT NULL,
    coach_id    VARCHAR(64) COLLATE "C" NOT NULL,
    room_id     VARCHAR(64) COLLATE "C" NOT NULL,
    starts_at   TIMESTAMPTZ NOT NULL,
    ends_at     TIMESTAMPTZ NOT NULL,
    capacity    INTEGER     NOT NULL,
    status      VARCHAR(16) NOT NULL,
    opens_at    TIMESTAMPTZ,
    closes_at   TIMESTAMPTZ,
    buffer_seconds INTEGER  NOT NULL DEFAULT 0,
    cancel_policy  VARCHAR(8),
    cancel_cutoff_seconds INTEGER,
    week_start  TIMESTAMPTZ,
    week_end    TIMESTAMPTZ,
    buffer_students BOOLEAN NOT NULL DEFAULT FALSE,
    class_type  VARCHAR(32) COLLATE "C",
    cost        INTEGER     NOT NULL DEFAULT 0,
    series_id   VARCHAR(64) COLLATE "C",
    CONSTRAINT ${prefix}slot_pk PRIMARY KEY (tenant_id, slot_id),
    CONSTRAINT ${prefix}slot_time_ck CHECK (starts_at < ends_at),
    CONSTRAINT ${prefix}slot_capacity_ck CHECK (capacity > 0),
    CONSTRAINT ${prefix}slot_status_ck CHECK (status IN ('OPEN', 'CANCELLED')),
    CONSTRAINT ${prefix}slot_cancel_policy_ck CHECK (cancel_policy IN ('FREE', 'REFUSE', 'LATE'))
);
-- Schemas created before the booking rules: the slot's window, buffer, cancel policy and week.
ALTER TABLE ${prefix}slot ADD COLUMN IF NOT EXISTS opens_at TIMESTAMPTZ;
ALTER TABLE ${prefix}slot ADD COLUMN IF NOT EXISTS closes_at TIMESTAMPTZ;
ALTER TABLE ${prefix}slot ADD COLUMN IF NOT EXISTS buffer_seconds INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ${prefix}slot ADD COLUMN IF NOT EXISTS cancel_policy VARCHAR(8)
    CONSTRAINT ${prefix}slot_cancel_policy_ck CHECK (cancel_policy IN ('FREE', 'REFUSE', 'LATE'));
ALTER TABLE ${prefix}slot ADD COLUMN IF NOT EXISTS cancel_cutoff_seconds INTEGER;
ALTER TABLE ${prefix}slot ADD COLUMN IF NOT EXISTS week_start TIMESTAMPTZ;
ALTER TABLE ${prefix}slot ADD COLUMN IF NOT EXISTS week_end TIMESTAMPTZ;
-- Schemas created before student buffers: whether the buffer keeps the booked students too.
ALTER TABLE ${prefix}slot ADD COLUMN IF NOT EXISTS buffer_students BOOLEAN NOT NULL DEFAULT FALSE;
-- Schemas created before lessons: the class type a package must cover, the credits a booking costs,
-- the weekly series a slot is an occurrence of.
ALTER TABLE ${prefix}slot ADD COLUMN IF NOT EXISTS class_type VARCHAR(32) COLLATE "C";
ALTER TABLE ${prefix}slot ADD COLUMN IF NOT EXISTS cost INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ${prefix}slot ADD COLUMN IF NOT EXISTS series_id VARCHAR(64) COLLATE "C";
-- The occurrences of a series by start (cancelSeries, seriesSlots).
CREATE INDEX IF NOT EXISTS ${prefix}slot_series_ix
    ON ${prefix}slot (tenant_id, series_id, starts_at) WHERE series_id IS NOT NULL;

-- The statuses a hold writes are domains: PostgreSQL keeps a domain's check compiled in its type
-- cache, whereas it reads every CHECK constraint of a table back from its stored form at each
-- statement that writes the table. The tables below use them from this version on; tables created
-- before keep their CHECK constraints of the same values.
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
                   WHERE t.typname = '${prefix}seat_status' AND n.nspname = current_schema()) THEN
        CREATE DOMAIN ${prefix}seat_status AS VARCHAR(16)
            CONSTRAINT ${prefix}seat_status_ck CHECK (VALUE::TEXT = ANY ('{FREE,HELD,CONFIRMED,CLOSED}'::TEXT[]));
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
                   WHERE t.typname = '${prefix}booking_status' AND n.nspname = current_schema()) THEN
        CREATE DOMAIN ${prefix}booking_status AS VARCHAR(16)
            CONSTRAINT ${prefix}booking_status_ck CHECK (VALUE::TEXT = ANY ('{HELD,CONFIRMED,CANCELLED,EXPIRED}'::TEXT[]));
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
                   WHERE t.typname = '${prefix}attendance' AND n.nspname = current_schema()) THEN
        CREATE DOMAIN ${prefix}attendance AS VARCHAR(16)
            CONSTRAINT ${prefix}attendance_ck CHECK (VALUE::TEXT = ANY ('{NONE,CHECKED_IN,NO_SHOW}'::TEXT[]));
    END IF;
END
$$;

-- One row per seat. A seat is FREE, HELD (until held_until), CONFIRMED, or CLOSED (slot cancelled).
-- The owner (booking, student) lives on the row, so taking a free or expired seat is one statement.
-- The statuses are the domains above. The checks left on the tables a hold writes (slot_seat, booking)
-- list values as one array constant rather than IN (...): it is about half the size to read back.
CREATE TABLE IF NOT EXISTS ${prefix}slot_seat (
    tenant_id   VARCHAR(64) COLLATE "C" NOT NULL,
    slot_id     VARCHAR(64) COLLATE "C" NOT NULL,
    seq         INTEGER     NOT NULL,
    status      ${prefix}seat_status NOT NULL,
    booking_id  VARCHAR(64) COLLATE "C",
    student_id  VARCHAR(64) COLLATE "C",
    held_until  TIMESTAMPTZ,
    CONSTRAINT ${prefix}slot_seat_pk PRIMARY KEY (tenant_id, slot_id, seq),
    CONSTRAINT ${prefix}slot_seat_owner_ck CHECK (
        CASE WHEN status::TEXT = ANY ('{FREE,CLOSED}'::TEXT[]) THEN booking_id IS NULL AND student_id IS NULL
             ELSE booking_id IS NOT NULL AND student_id IS NOT NULL AND held_until IS NOT NULL END)
);
-- One seat per student and slot. Partial, so that no claim (which looks for seats without a
-- student) can be planned over it, even before the table has statistics.
CREATE UNIQUE INDEX IF NOT EXISTS ${prefix}slot_seat_student_uk
    ON ${prefix}slot_seat (tenant_id, slot_id, student_id) WHERE student_id IS NOT NULL;
-- Free seats only: the claim reads the first entry of this index.
CREATE INDEX IF NOT EXISTS ${prefix}slot_seat_free_ix
    ON ${prefix}slot_seat (tenant_id, slot_id, seq) WHERE status = 'FREE';
-- The seats a hold can take, keyed by when they became takeable: a FREE seat at -infinity, a HELD one
-- at its deadline. Whether a slot is full by its committed seats is one probe of this index (is there
-- an entry at or before now?), and a claim takes over the oldest expired hold (the first entry after
-- -infinity) when no seat is free. The seat number ends the key so that no two entries are equal: a
-- slot's FREE seats would otherwise share one key, which PostgreSQL stores once, and the index would
-- look so much smaller than the free-seat index that a planner without statistics reads it for a
-- claim, every free seat of the slot, and sorts them.
CREATE INDEX IF NOT EXISTS ${prefix}slot_seat_takeable_seq_ix
    ON ${prefix}slot_seat (tenant_id, slot_id,
                           (CASE WHEN status = 'FREE' THEN '-infinity'::TIMESTAMPTZ ELSE held_until END), seq)
    WHERE status IN ('FREE', 'HELD');
-- Schemas created before: held seats by deadline, then takeable seats without the seat number, which
-- the index above serves now.
DROP INDEX IF EXISTS ${prefix}slot_seat_held_ix;
DROP INDEX IF EXISTS ${prefix}slot_seat_takeable_ix;

CREATE TABLE IF NOT EXISTS ${prefix}booking (
    tenant_id   VARCHAR(64) COLLATE "C" NOT NULL,
    booking_id  VARCHAR(64) COLLATE "C" NOT NULL,
    request_id  VARCHAR(64) COLLATE "C" NOT NULL,
    slot_id     VARCHAR(64) COLLATE "C" NOT NULL,
    student_id  VARCHAR(64) COLLATE "C" NOT NULL,
    seat        INTEGER     NOT NULL,
    status      ${prefix}booking_status NOT NULL,
    held_until  TIMESTAMPTZ NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL,
    late_cancel BOOLEAN     NOT NULL DEFAULT FALSE,
    package_id  VARCHAR(64) COLLATE "C",
    credits     INTEGER     NOT NULL DEFAULT 0,
    attendance  ${prefix}attendance NOT NULL DEFAULT 'NONE',
    CONSTRAINT ${prefix}booking_pk PRIMARY KEY (tenant_id, booking_id),
    CONSTRAINT ${prefix}booking_credits_ck CHECK ((credits > 0) = (package_id IS NOT NULL) AND credits >= 0)
);
-- Schemas created before the booking rules: whether a cancel came after the cutoff.
ALTER TABLE ${prefix}booking ADD COLUMN IF NOT EXISTS late_cancel BOOLEAN NOT NULL DEFAULT FALSE;
-- Schemas created before lessons: the package that paid and how many credits the booking holds of
-- it now, and whether the student came.
ALTER TABLE ${prefix}booking ADD COLUMN IF NOT EXISTS package_id VARCHAR(64) COLLATE "C";
ALTER TABLE ${prefix}booking ADD COLUMN IF NOT EXISTS credits INTEGER NOT NULL DEFAULT 0
    CONSTRAINT ${prefix}booking_credits_ck CHECK ((credits > 0) = (package_id IS NOT NULL) AND credits >= 0);
ALTER TABLE ${prefix}booking ADD COLUMN IF NOT EXISTS attendance VARCHAR(16) NOT NULL DEFAULT 'NONE'
    CONSTRAINT ${prefix}booking_attendance_ck CHECK (attendance IN ('NONE', 'CHECKED_IN', 'NO_SHOW'));
-- CONFIRMED bookings not checked in (yet): what the sweep marks as no-shows, by slot.
CREATE INDEX IF NOT EXISTS ${prefix}booking_unattended_ix
    ON ${prefix}booking (tenant_id, slot_id) WHERE status = 'CONFIRMED' AND attendance = 'NONE';
-- Until statistics exist, the planner costs every index whose first column is bound alike, and a
-- lookup of one row could walk all of a tenant's bookings over the wrong one. So the indexes below
-- do not compete for the lookup by primary key: the request index starts with request_id, the
-- others are partial on statuses such a lookup does not name.
-- One booking per request id and tenant.
CREATE UNIQUE INDEX IF NOT EXISTS ${prefix}booking_request_ux
    ON ${prefix}booking (request_id, tenant_id);
-- Schemas created before the request index: its predecessor, a constraint on (tenant_id, request_id).
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_constraint
               WHERE conname = '${prefix}booking_request_uk' AND conrelid = to_regclass('${prefix}booking')) THEN
        ALTER TABLE ${prefix}booking DROP CONSTRAINT ${prefix}booking_request_uk;
    END IF;
END
$$;
CREATE INDEX IF NOT EXISTS ${prefix}booking_held_ix
    ON ${prefix}booking (tenant_id, held_until) WHERE status = 'HELD';
-- The live bookings of a slot and student (replaces booking_slot_ix, which covered every status).
CREATE INDEX IF NOT EXISTS ${prefix}booking_live_ix
    ON ${prefix}booking (tenant_id, slot_id, student_id) WHERE status IN ('HELD', 'CONFIRMED');
DROP INDEX IF EXISTS ${prefix}booking_slot_ix;

-- Who is busy when: coach and room of a slot (booking_id NULL) and the student of a booking.
-- Released rows (active = FALSE) stay as history.
CREATE TABLE IF NOT EXISTS ${prefix}occupancy (
    id            BIGINT GENERATED BY DEFAULT AS IDENTITY,
    tenant_id     VARCHAR(64) COLLATE "C" NOT NULL,
    resource_kind VARCHAR(8)  NOT NULL,
    resource_id   VARCHAR(64) COLLATE "C" NOT NULL,
    starts_at     TIMESTAMPTZ NOT NULL,
    ends_at       TIMESTAMPTZ NOT NULL,
    slot_id       VARCHAR(64) COLLATE "C" NOT NULL,
    booking_id    VARCHAR(64) COLLATE "C",
    active        BOOLEAN     NOT NULL,
    CONSTRAINT ${prefix}occupancy_pk PRIMARY KEY (id, tenant_id),
    CONSTRAINT ${prefix}occupancy_time_ck CHECK (starts_at < ends_at)
);
-- Serves starts_at < :end AND ends_at > :start AND starts_at > :start - :longestSession.
CREATE INDEX IF NOT EXISTS ${prefix}occupancy_overlap_ix
    ON ${prefix}occupancy (tenant_id, resource_kind, resource_id, starts_at, ends_at) WHERE active;
-- Releasing a booking's or a slot's occupations in one database call (the ${prefix}... functions
-- of routines-postgresql.sql). These statements say "active IS NOT FALSE", which no partial index above (nor the
-- optional exclusion constraint's) is planned for, and these two are not led by tenant_id, so that
-- before statistics exist no index matching only tenant_id can look as cheap as the right one.
CREATE INDEX IF NOT EXISTS ${prefix}occupancy_release_booking_ix
    ON ${prefix}occupancy (booking_id, tenant_id);
CREATE INDEX IF NOT EXISTS ${prefix}occupancy_release_slot_ix
    ON ${prefix}occupancy (slot_id, tenant_id);
-- Schemas created before: partial indexes on (tenant_id, booking_id) and (tenant_id, slot_id), which
-- no statement was planned on (the two above serve them) and which every hold wrote.
DROP INDEX IF EXISTS ${prefix}occupancy_booking_ix;
DROP INDEX IF EXISTS ${prefix}occupancy_slot_ix;

-- The waitlist: one row per request that found its slot full. seq is the join order. A WAITING
-- entry is PROMOTED (given booking_id, a HELD seat), SKIPPED (with the reason) or LEFT.
CREATE TABLE IF NOT EXISTS ${prefix}waiter (
    tenant_id   VARCHAR(64) COLLATE "C" NOT NULL,
    request_id  VARCHAR(64) COLLATE "C" NOT NULL,
    slot_id     VARCHAR(64) COLLATE "C" NOT NULL,
    student_id  VARCHAR(64) COLLATE "C" NOT NULL,
    booking_id  VARCHAR(64) COLLATE "C" NOT NULL,
    seq         BIGINT GENERATED BY DEFAULT AS IDENTITY,
    status      VARCHAR(16) NOT NULL,
    reason      VARCHAR(16),
    joined_at   TIMESTAMPTZ NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL,
    CONSTRAINT ${prefix}waiter_pk PRIMARY KEY (tenant_id, request_id),
    CONSTRAINT ${prefix}waiter_status_ck CHECK (status IN ('WAITING', 'PROMOTED', 'LEFT', 'SKIPPED')),
    CONSTRAINT ${prefix}waiter_reason_ck CHECK (reason IN ('CONFLICT', 'LIMIT', 'ALREADY_BOOKED', 'NO_CREDITS'))
);
-- Schemas created before lessons: a waiter is also skipped when no package of his can pay (NO_CREDITS).
ALTER TABLE ${prefix}waiter DROP CONSTRAINT IF EXISTS ${prefix}waiter_reason_ck;
ALTER TABLE ${prefix}waiter ADD CONSTRAINT ${prefix}waiter_reason_ck
    CHECK (reason IN ('CONFLICT', 'LIMIT', 'ALREADY_BOOKED', 'NO_CREDITS'));
-- The waiting entries of a slot in join order: promotion walks it, a position counts in it, and a
-- student's own waiting entry of the slot is found in it (a slot's waitlist is short).
CREATE INDEX IF NOT EXISTS ${prefix}waiter_waiting_ix
    ON ${prefix}waiter (tenant_id, slot_id, seq) WHERE status = 'WAITING';

-- One row per coach, room or student, locked (SELECT ... FOR UPDATE) before its occupancy is checked.
CREATE TABLE IF NOT EXISTS ${prefix}resource_lock (
    tenant_id     VARCHAR(64) COLLATE "C" NOT NULL,
    resource_kind VARCHAR(8)  NOT NULL,
    resource_id   VARCHAR(64) COLLATE "C" NOT NULL,
    CONSTRAINT ${prefix}resource_lock_pk PRIMARY KEY (tenant_id, resource_kind, resource_id)
);

-- Lesson packages: credits granted to a student, remaining = what is not drawn yet (never below 0).
-- class_types: the class types it pays for, sorted and joined by ',' ('' : any session). Every change
-- of remaining writes a credit_entry row in the same transaction, so the journal sums to it.
CREATE TABLE IF NOT EXISTS ${prefix}lesson_package (
    tenant_id   VARCHAR(64) COLLATE "C" NOT NULL,
    package_id  VARCHAR(64) COLLATE "C" NOT NULL,
    student_id  VARCHAR(64) COLLATE "C" NOT NULL,
    credits     INTEGER     NOT NULL,
    remaining   INTEGER     NOT NULL,
    valid_from  TIMESTAMPTZ NOT NULL,
    valid_until TIMESTAMPTZ NOT NULL,
    class_types VARCHAR(700) COLLATE "C" NOT NULL DEFAULT '',
    granted_at  TIMESTAMPTZ NOT NULL,
    CONSTRAINT ${prefix}lesson_package_pk PRIMARY KEY (tenant_id, package_id),
    CONSTRAINT ${prefix}lesson_package_credits_ck CHECK (credits > 0),
    CONSTRAINT ${prefix}lesson_package_remaining_ck CHECK (remaining >= 0 AND remaining <= credits),
    CONSTRAINT ${prefix}lesson_package_valid_ck CHECK (valid_from < valid_until)
);
-- A student's packages in the order they pay (the one that runs out first).
CREATE INDEX IF NOT EXISTS ${prefix}lesson_package_student_ix
    ON ${prefix}lesson_package (tenant_id, student_id, valid_until, package_id);

-- The credit journal, append-only: GRANT (+credits), DRAW and FORFEIT (-cost), REFUND (+credits held).
-- seq orders the entries as they were written. At most one entry of each reason per booking.
CREATE TABLE IF NOT EXISTS ${prefix}credit_entry (
    seq         BIGINT GENERATED BY DEFAULT AS IDENTITY,
    tenant_id   VARCHAR(64) COLLATE "C" NOT NULL,
    package_id  VARCHAR(64) COLLATE "C" NOT NULL,
    reason      VARCHAR(8)  NOT NULL,
    delta       INTEGER     NOT NULL,
    booking_id  VARCHAR(64) COLLATE "C",
    request_id  VARCHAR(64) COLLATE "C",
    at          TIMESTAMPTZ NOT NULL,
    CONSTRAINT ${prefix}credit_entry_pk PRIMARY KEY (seq, tenant_id),
    CONSTRAINT ${prefix}credit_entry_reason_ck CHECK (reason IN ('GRANT', 'DRAW', 'REFUND', 'FORFEIT')),
    CONSTRAINT ${prefix}credit_entry_delta_ck CHECK (
        (reason IN ('GRANT', 'REFUND') AND delta > 0) OR (reason IN ('DRAW', 'FORFEIT') AND delta < 0)),
    CONSTRAINT ${prefix}credit_entry_booking_ck CHECK ((reason = 'GRANT') = (booking_id IS NULL))
);
-- A package's journal in order.
CREATE INDEX IF NOT EXISTS ${prefix}credit_entry_package_ix
    ON ${prefix}credit_entry (tenant_id, package_id, seq);
-- Idempotency: one entry of each reason per booking (and one GRANT per package).
CREATE UNIQUE INDEX IF NOT EXISTS ${prefix}credit_entry_booking_ux
    ON ${prefix}credit_entry (tenant_id, booking_id, reason) WHERE booking_id IS NOT NULL;
CREATE UNIQUE INDEX IF NOT EXISTS ${prefix}credit_entry_grant_ux
    ON ${prefix}credit_entry (tenant_id, package_id) WHERE reason = 'GRANT';

-- The fence of a router's move (TenantMove): which tenants this database serves. No row: served (a
-- database that never took part in a move has none). FENCED: a move is copying the tenant away, or
-- into this database; MOVED: the tenant lives in another database now. Every decision of a tenant
-- FENCED or MOVED is refused (SQLSTATE SB002) and may be retried on the tenant's current shard. epoch
-- counts the moves of the tenant.
CREATE TABLE IF NOT EXISTS ${prefix}tenant_fence (
    tenant_id   VARCHAR(64) COLLATE "C" NOT NULL,
    epoch       BIGINT      NOT NULL,
    state       VARCHAR(8)  NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT clock_timestamp(),
    CONSTRAINT ${prefix}tenant_fence_pk PRIMARY KEY (tenant_id),
    CONSTRAINT ${prefix}tenant_fence_state_ck CHECK (state IN ('OWNED', 'FENCED', 'MOVED'))
);

-- Schemas created before every key held tenant_id: occupancy and credit_entry were keyed by their
-- identity alone, which a table distributed by tenant_id (Citus) cannot keep. The key is rebuilt with
-- tenant_id after the identity (not before it, so that no index led by tenant_id alone competes with
-- the overlap and release indexes before statistics exist). Rebuilding it locks the table while its
-- index is built.
DO $$
DECLARE
    v_table VARCHAR;
BEGIN
    FOREACH v_table IN ARRAY ARRAY['occupancy', 'credit_entry'] LOOP
        IF EXISTS (SELECT 1 FROM pg_constraint c
                   WHERE c.conname = '${prefix}' || v_table || '_pk' AND c.conrelid = to_regclass('${prefix}' || v_table)
                     AND array_length(c.conkey, 1) = 1) THEN
            EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I, ADD CONSTRAINT %I PRIMARY KEY (%I, tenant_id)',
                           '${prefix}' || v_table, '${prefix}' || v_table || '_pk', '${prefix}' || v_table || '_pk',
                           CASE v_table WHEN 'occupancy' THEN 'id' ELSE 'seq' END);
        END IF;
    END LOOP;
END
$$;

-- The outbox: every decision writes its booking events here in its own call (event_rows). event_id is
-- taken at insert from the identity and orders the events of one decision; transactions do not commit
-- in event_id order, so the order hosts see is pos, assigned later, serially per tenant under the
-- tenant's event_head row by the relay or a pull (OutboxSql): a pull that reads pos > its cursor
-- never skips an event that committed late. state: PENDING until the relay (or the deciding node)
-- delivered it, DELIVERED once, DEAD after the bounded tries (re-delivered by an operator call).
CREATE TABLE IF NOT EXISTS ${prefix}event (
    tenant_id       VARCHAR(64) COLLATE "C" NOT NULL,
    event_id        BIGINT GENERATED BY DEFAULT AS IDENTITY,
    pos             BIGINT,
    kind            VARCHAR(16) NOT NULL,
    booking_id      VARCHAR(64) COLLATE "C" NOT NULL,
    request_id      VARCHAR(64) COLLATE "C" NOT NULL,
    slot_id         VARCHAR(64) COLLATE "C" NOT NULL,
    student_id      VARCHAR(64) COLLATE "C" NOT NULL,
    seat            INTEGER     NOT NULL,
    status          VARCHAR(16) NOT NULL,
    held_until      TIMESTAMPTZ NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL,
    package_id      VARCHAR(64) COLLATE "C",
    credits         INTEGER     NOT NULL DEFAULT 0,
    attendance      VARCHAR(16) NOT NULL DEFAULT 'NONE',
    written_at      TIMESTAMPTZ NOT NULL,
    state           VARCHAR(16) NOT NULL DEFAULT 'PENDING',
    attempts        INTEGER     NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMPTZ,
    last_error      VARCHAR(500),
    delivered_at    TIMESTAMPTZ,
    delivered_by    VARCHAR(64),
    CONSTRAINT ${prefix}event_pk PRIMARY KEY (tenant_id, event_id)
);
-- positions in order (and the events not sequenced yet, pos NULL, by event_id)
CREATE INDEX IF NOT EXISTS ${prefix}event_position_ix ON ${prefix}event (tenant_id, pos, event_id);
-- the undelivered events only: the tenants with a backlog, and the events the deciding node marks
-- delivered by booking and kind
CREATE INDEX IF NOT EXISTS ${prefix}event_pending_ix ON ${prefix}event (tenant_id, booking_id)
    WHERE state = 'PENDING';

-- Per tenant: the last pos given, the settled_pos below which every event is settled, and the relay
-- that holds the tenant's lease (one relay delivers a tenant at a time, in pos order).
CREATE TABLE IF NOT EXISTS ${prefix}event_head (
    tenant_id     VARCHAR(64) COLLATE "C" NOT NULL,
    last_pos      BIGINT      NOT NULL DEFAULT 0,
    settled_pos   BIGINT      NOT NULL DEFAULT 0,
    dead_count    BIGINT      NOT NULL DEFAULT 0,
    lease_owner   VARCHAR(64),
    lease_until   TIMESTAMPTZ,
    CONSTRAINT ${prefix}event_head_pk PRIMARY KEY (tenant_id)
);

-- The stored cursors of pull consumers: the last pos a consumer has processed.
CREATE TABLE IF NOT EXISTS ${prefix}event_cursor (
    tenant_id   VARCHAR(64) COLLATE "C" NOT NULL,
    consumer    VARCHAR(64) COLLATE "C" NOT NULL,
    pos         BIGINT      NOT NULL,
    updated_at  TIMESTAMPTZ NOT NULL,
    CONSTRAINT ${prefix}event_cursor_pk PRIMARY KEY (tenant_id, consumer)
);
