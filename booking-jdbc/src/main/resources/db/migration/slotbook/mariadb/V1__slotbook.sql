-- Slotbook V1 for mariadb: the tables (schema-mariadb.sql) and the decision routines (routines-mariadb.sql) as of
-- release 0.1.0, with the table prefix as the Flyway placeholder ${slotbook_prefix}. Released migrations
-- never change: a schema change ships as the next version (V2__...).

-- Slotbook ledger schema for MariaDB 10.6+ (tested on 10.11) and MySQL 8: the tables. The decision
-- procedures are in routines-mariadb.sql, run after this file.
-- ${slotbook_prefix} is the table prefix (default slotbook_); this migration names it slotbook_prefix.
-- Every statement is idempotent. Times are UTC instants stored in DATETIME(6) (microseconds);
-- the library writes and reads them as UTC, whatever the session time zone.
-- Ids compare byte for byte (utf8mb4_bin): 'A' and 'a' are two different ids.

CREATE TABLE IF NOT EXISTS ${slotbook_prefix}slot (
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
    PRIMARY KEY (tenant_id, slot_id),
    CONSTRAINT ${slotbook_prefix}slot_time_ck CHECK (starts_at < ends_at),
    CONSTRAINT ${slotbook_prefix}slot_capacity_ck CHECK (capacity > 0),
    CONSTRAINT ${slotbook_prefix}slot_status_ck CHECK (status IN ('OPEN', 'CANCELLED')),
    CONSTRAINT ${slotbook_prefix}slot_cancel_policy_ck CHECK (cancel_policy IN ('FREE', 'REFUSE', 'LATE'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- A schema created before the booking rules gets their columns.
ALTER TABLE ${slotbook_prefix}slot
    ADD COLUMN IF NOT EXISTS opens_at DATETIME(6),
    ADD COLUMN IF NOT EXISTS closes_at DATETIME(6),
    ADD COLUMN IF NOT EXISTS buffer_seconds INT NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS cancel_policy VARCHAR(8) CHECK (cancel_policy IN ('FREE', 'REFUSE', 'LATE')),
    ADD COLUMN IF NOT EXISTS cancel_cutoff_seconds INT,
    ADD COLUMN IF NOT EXISTS week_start DATETIME(6),
    ADD COLUMN IF NOT EXISTS week_end DATETIME(6),
    ADD COLUMN IF NOT EXISTS buffer_students BOOLEAN NOT NULL DEFAULT FALSE;

-- One row per seat. A seat is FREE, HELD (until held_until), CONFIRMED, or CLOSED (slot cancelled).
-- The owner (booking, student) lives on the row, so taking a seat is a locked read and an update by key.
CREATE TABLE IF NOT EXISTS ${slotbook_prefix}slot_seat (
    tenant_id   VARCHAR(64) NOT NULL,
    slot_id     VARCHAR(64) NOT NULL,
    seq         INT         NOT NULL,
    status      VARCHAR(16) NOT NULL,
    booking_id  VARCHAR(64),
    student_id  VARCHAR(64),
    held_until  DATETIME(6),
    PRIMARY KEY (tenant_id, slot_id, seq),
    UNIQUE KEY ${slotbook_prefix}slot_seat_student_uk (tenant_id, slot_id, student_id),
    -- The claim's index: without it the optimizer may pick the student key and sort a whole hot slot.
    KEY ${slotbook_prefix}slot_seat_claim_ix (tenant_id, slot_id, status, seq),
    KEY ${slotbook_prefix}slot_seat_held_ix (tenant_id, slot_id, status, held_until),
    CONSTRAINT ${slotbook_prefix}slot_seat_status_ck CHECK (status IN ('FREE', 'HELD', 'CONFIRMED', 'CLOSED')),
    CONSTRAINT ${slotbook_prefix}slot_seat_owner_ck CHECK (
        (status IN ('FREE', 'CLOSED') AND booking_id IS NULL AND student_id IS NULL)
        OR (status IN ('HELD', 'CONFIRMED') AND booking_id IS NOT NULL AND student_id IS NOT NULL
            AND held_until IS NOT NULL))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE IF NOT EXISTS ${slotbook_prefix}booking (
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
    PRIMARY KEY (tenant_id, booking_id),
    UNIQUE KEY ${slotbook_prefix}booking_request_uk (tenant_id, request_id),
    KEY ${slotbook_prefix}booking_slot_ix (tenant_id, slot_id, student_id),
    KEY ${slotbook_prefix}booking_held_ix (tenant_id, status, held_until),
    CONSTRAINT ${slotbook_prefix}booking_status_ck CHECK (status IN ('HELD', 'CONFIRMED', 'CANCELLED', 'EXPIRED'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

ALTER TABLE ${slotbook_prefix}booking ADD COLUMN IF NOT EXISTS late_cancel BOOLEAN NOT NULL DEFAULT FALSE;

-- Who is busy when: coach and room of a slot (booking_id NULL) and the student of a booking.
-- Released rows (active = FALSE) stay as history.
CREATE TABLE IF NOT EXISTS ${slotbook_prefix}occupancy (
    id            BIGINT      NOT NULL AUTO_INCREMENT,
    tenant_id     VARCHAR(64) NOT NULL,
    resource_kind VARCHAR(8)  NOT NULL,
    resource_id   VARCHAR(64) NOT NULL,
    starts_at     DATETIME(6) NOT NULL,
    ends_at       DATETIME(6) NOT NULL,
    slot_id       VARCHAR(64) NOT NULL,
    booking_id    VARCHAR(64),
    active        BOOLEAN     NOT NULL,
    PRIMARY KEY (id),
    -- Serves starts_at < :end AND ends_at > :start AND starts_at > :start - :longestSession.
    KEY ${slotbook_prefix}occupancy_overlap_ix (tenant_id, resource_kind, resource_id, active, starts_at, ends_at),
    KEY ${slotbook_prefix}occupancy_booking_ix (tenant_id, booking_id),
    KEY ${slotbook_prefix}occupancy_slot_ix (tenant_id, slot_id),
    CONSTRAINT ${slotbook_prefix}occupancy_time_ck CHECK (starts_at < ends_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- One row per coach, room or student, locked (SELECT ... FOR UPDATE) before its occupancy is checked.
CREATE TABLE IF NOT EXISTS ${slotbook_prefix}resource_lock (
    tenant_id     VARCHAR(64) NOT NULL,
    resource_kind VARCHAR(8)  NOT NULL,
    resource_id   VARCHAR(64) NOT NULL,
    PRIMARY KEY (tenant_id, resource_kind, resource_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;


-- The waitlist of a full slot: one row per waitlisted request, in join order (seq). A freed seat goes
-- to the first WAITING entry that can take it (PROMOTED, with the booking id kept here); those passed
-- over are SKIPPED with the reason; LEFT is a student who left the list.
CREATE TABLE IF NOT EXISTS ${slotbook_prefix}waiter (
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
    UNIQUE KEY ${slotbook_prefix}waiter_seq_uk (seq),
    -- the WAITING entries of a slot in join order (promotion, positions)
    KEY ${slotbook_prefix}waiter_slot_ix (tenant_id, slot_id, status, seq),
    -- a student's entry of a slot
    KEY ${slotbook_prefix}waiter_student_ix (tenant_id, slot_id, student_id, status),
    CONSTRAINT ${slotbook_prefix}waiter_status_ck CHECK (status IN ('WAITING', 'PROMOTED', 'LEFT', 'SKIPPED')),
    CONSTRAINT ${slotbook_prefix}waiter_reason_ck CHECK (reason IN ('CONFLICT', 'LIMIT', 'ALREADY_BOOKED'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Slotbook decision procedures for MariaDB 10.6+ (tested on 10.11), run after schema-mariadb.sql.
-- ${slotbook_prefix} is the table prefix (default slotbook_); this migration names it slotbook_prefix.
-- Every statement is idempotent (CREATE OR REPLACE PROCEDURE).
--
-- Statement separator: ';' until a line "DELIMITER //" switches it to '//' (the procedure bodies
-- contain ';'), and "DELIMITER ;" switches it back: the convention of the mariadb/mysql command-line
-- client, which Flyway's MySQL/MariaDB parser and JdbcSchema (SqlScript) follow as well, so the file
-- runs unchanged through all three (after ${slotbook_prefix} is replaced).
--
-- MySQL 8: the procedures are tested on MariaDB only. They use two MariaDB-only forms a MySQL user
-- must change: "CREATE OR REPLACE PROCEDURE x" becomes "DROP PROCEDURE IF EXISTS x" + "CREATE
-- PROCEDURE x", and the "SET STATEMENT group_concat_max_len = ... FOR" prefixes go (MySQL's
-- JSON_ARRAYAGG has no such limit). The rest (JSON_TABLE, SKIP LOCKED, FORCE INDEX,
-- SIGNAL/RESIGNAL) exists in MySQL 8 too.

-- ---------------------------------------------------------------------------------------------
-- One call per engine decision. Each decision procedure runs its own READ COMMITTED transaction
-- (call it with autocommit on), and answers with ONE result set of fact rows, always these 17 columns:
--   tag, booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at,
--   updated_at, res_kind, res_id, starts_at, ends_at, coach_id, room_id, capacity
-- (read by org.slotbook.jdbc.internal.Facts). The answer is captured in variables, and the events in
-- a JSON list in the order they happened, inside the transaction, and selected once after COMMIT, so
-- a failed commit never leaves a result set behind.
-- Lock order everywhere: resource_lock rows (kind, then id), slot row, seat rows, booking rows; a
-- freed seat is offered to the slot's waitlist (promote) under the slot row's lock, and the waiter's
-- student lock is taken after it (a deadlock this may cause is retried by the caller).
-- Reads that decide under a lock are locking reads (LOCK IN SHARE MODE, or FOR UPDATE): InnoDB can
-- grant a lock row (resource_lock, slot, seat) to this transaction while a read view opened right
-- after it still misses the changes of the transaction that held it, so a plain (consistent) read at
-- READ COMMITTED may not see the booking or occupation the previous holder just made (seen on 10.11:
-- two concurrent holds of one student for overlapping slots both passed the occupancy check). A
-- locking read reads the newest committed row and waits for an uncommitted one.
-- p_now NULL means the database clock, UTC_TIMESTAMP(6), read once per call.
-- The helpers (waiter_row, note_booking, promote, retire) run inside the caller's transaction.
-- ---------------------------------------------------------------------------------------------

DELIMITER //

-- A waitlist entry as answer columns: booking id, request, slot, student, position (0 when not
-- WAITING), status, joined at, updated at, skip reason. No row: every OUT stays NULL.
CREATE OR REPLACE PROCEDURE ${slotbook_prefix}waiter_row(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_request VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    OUT o_booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    OUT o_request VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    OUT o_slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    OUT o_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    OUT o_position INT,
    OUT o_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    OUT o_joined DATETIME(6),
    OUT o_updated DATETIME(6),
    OUT o_reason VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin)
READS SQL DATA
BEGIN
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    SELECT w.booking_id, w.request_id, w.slot_id, w.student_id,
           IF(w.status = 'WAITING',
              (SELECT COUNT(*) FROM ${slotbook_prefix}waiter o FORCE INDEX (${slotbook_prefix}waiter_slot_ix)
                WHERE o.tenant_id = w.tenant_id AND o.slot_id = w.slot_id AND o.status = 'WAITING' AND o.seq <= w.seq),
              0),
           w.status, w.joined_at, w.updated_at, w.reason
      INTO o_booking, o_request, o_slot, o_student, o_position, o_status, o_joined, o_updated, o_reason
      FROM ${slotbook_prefix}waiter w WHERE w.tenant_id = p_tenant AND w.request_id = p_request;
END//

-- Appends one event row of a booking, as it is now in this transaction, to the JSON list p_events.
CREATE OR REPLACE PROCEDURE ${slotbook_prefix}note_booking(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_tag VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    INOUT p_events LONGTEXT)
READS SQL DATA
BEGIN
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    SELECT JSON_ARRAY_APPEND(COALESCE(p_events, '[]'), '$',
               JSON_ARRAY(p_tag, booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at,
                          updated_at, NULL))
      INTO p_events
      FROM ${slotbook_prefix}booking WHERE tenant_id = p_tenant AND booking_id = p_booking;
END//

-- A seat of slot p_slot was freed by the caller, who holds the slot row's lock: give a free seat to the
-- first WAITING waiter who can take it (no HELD or CONFIRMED booking of the slot, no live overlapping
-- booking, within the limits), as a HELD booking (EV_PROMOTED); those passed over become SKIPPED
-- (EV_SKIPPED). Nothing while the slot is not OPEN, or at or after its start minus the waitlist cutoff.
CREATE OR REPLACE PROCEDURE ${slotbook_prefix}promote(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_now DATETIME(6),
    p_hold_micros BIGINT,
    p_longest_micros BIGINT,
    p_max_upcoming INT,
    p_max_week INT,
    p_waitlist_cutoff_micros BIGINT,
    INOUT p_events LONGTEXT)
MODIFIES SQL DATA
BEGIN
    DECLARE v_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_start, v_end, v_week_start, v_week_end, v_joined DATETIME(6);
    DECLARE v_held_until DATETIME(6) DEFAULT p_now + INTERVAL p_hold_micros MICROSECOND;
    DECLARE v_buffer INT DEFAULT 0;
    DECLARE v_buffer_students BOOLEAN DEFAULT FALSE;
    DECLARE v_seat INT;
    DECLARE v_wseq BIGINT;
    DECLARE v_request, v_student, v_booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_reason VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_n, v_up, v_week INT DEFAULT 0;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;

    SELECT status, starts_at, ends_at, week_start, week_end, buffer_seconds, buffer_students
      INTO v_status, v_start, v_end, v_week_start, v_week_end, v_buffer, v_buffer_students
      FROM ${slotbook_prefix}slot WHERE tenant_id = p_tenant AND slot_id = p_slot;
    -- the student's time: the session, and its buffer when the slot pads its students too
    IF v_buffer_students THEN
        SET v_end = v_end + INTERVAL v_buffer SECOND;
    END IF;
    walk: BEGIN
        IF v_status IS NULL OR v_status <> 'OPEN'
           OR p_now >= v_start - INTERVAL p_waitlist_cutoff_micros MICROSECOND THEN
            LEAVE walk;
        END IF;
        -- the first free seat (the one just freed is locked by this transaction, so it is never skipped)
        SELECT seq INTO v_seat FROM ${slotbook_prefix}slot_seat FORCE INDEX (${slotbook_prefix}slot_seat_claim_ix)
         WHERE tenant_id = p_tenant AND slot_id = p_slot AND status = 'FREE'
         ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED;
        IF v_seat IS NULL THEN
            LEAVE walk;
        END IF;
        next_waiter: LOOP
            SET v_wseq = NULL, v_reason = NULL, v_up = 0, v_week = 0;
            SELECT seq, request_id, student_id, booking_id, joined_at
              INTO v_wseq, v_request, v_student, v_booking, v_joined
              FROM ${slotbook_prefix}waiter FORCE INDEX (${slotbook_prefix}waiter_slot_ix)
             WHERE tenant_id = p_tenant AND slot_id = p_slot AND status = 'WAITING'
             ORDER BY seq LIMIT 1 FOR UPDATE;
            IF v_wseq IS NULL THEN
                LEAVE walk;
            END IF;
            SELECT COUNT(*) INTO v_n FROM ${slotbook_prefix}resource_lock
         WHERE tenant_id = p_tenant AND resource_kind = 'STUDENT' AND resource_id = v_student FOR UPDATE;
        IF v_n = 0 THEN
            INSERT INTO ${slotbook_prefix}resource_lock (tenant_id, resource_kind, resource_id) VALUES (p_tenant, 'STUDENT', v_student)
                ON DUPLICATE KEY UPDATE resource_id = resource_id;
        END IF;
            -- what the student's lock guards is read with locking reads (see hold, step 5)
            SELECT COUNT(*) INTO v_n FROM ${slotbook_prefix}booking
             WHERE tenant_id = p_tenant AND slot_id = p_slot AND student_id = v_student
               AND status IN ('HELD', 'CONFIRMED') LOCK IN SHARE MODE;
            IF v_n = 0 THEN
                SELECT COUNT(*) INTO v_n FROM ${slotbook_prefix}occupancy o
                 WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = v_student
                   AND o.active = TRUE AND o.starts_at < v_end AND o.ends_at > v_start
                   AND o.starts_at > v_start - INTERVAL p_longest_micros MICROSECOND
                   AND NOT EXISTS (SELECT 1 FROM ${slotbook_prefix}booking b
                                    WHERE b.tenant_id = p_tenant AND b.booking_id = o.booking_id
                                      AND b.status = 'HELD' AND b.held_until <= p_now) LOCK IN SHARE MODE;
                IF v_n > 0 THEN
                    SET v_n = -1;
                END IF;
            END IF;
            IF v_n > 0 THEN
                SET v_reason = 'ALREADY_BOOKED';
            ELSEIF v_n < 0 THEN
                SET v_reason = 'CONFLICT';
            ELSE
                IF p_max_upcoming > 0 THEN
                    SELECT COUNT(*) INTO v_up
                      FROM ${slotbook_prefix}occupancy o
                     WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = v_student
                       AND o.active = TRUE AND o.starts_at > p_now - INTERVAL p_longest_micros MICROSECOND
                       AND o.ends_at > p_now
                       AND NOT EXISTS (SELECT 1 FROM ${slotbook_prefix}booking b
                                        WHERE b.tenant_id = p_tenant AND b.booking_id = o.booking_id
                                          AND b.status = 'HELD' AND b.held_until <= p_now) LOCK IN SHARE MODE;
                END IF;
                IF p_max_week > 0 AND v_week_start IS NOT NULL THEN
                    SELECT COUNT(*) INTO v_week
                      FROM ${slotbook_prefix}occupancy o
                     WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = v_student
                       AND o.active = TRUE AND o.starts_at >= v_week_start AND o.starts_at < v_week_end
                       AND NOT EXISTS (SELECT 1 FROM ${slotbook_prefix}booking b
                                        WHERE b.tenant_id = p_tenant AND b.booking_id = o.booking_id
                                          AND b.status = 'HELD' AND b.held_until <= p_now) LOCK IN SHARE MODE;
                END IF;
                IF (p_max_upcoming > 0 AND v_up >= p_max_upcoming) OR (p_max_week > 0 AND v_week >= p_max_week) THEN
                    SET v_reason = 'LIMIT';
                END IF;
            END IF;
            IF v_reason IS NOT NULL THEN
                UPDATE ${slotbook_prefix}waiter SET status = 'SKIPPED', reason = v_reason, updated_at = p_now
                 WHERE tenant_id = p_tenant AND request_id = v_request AND status = 'WAITING';
                SET p_events = JSON_ARRAY_APPEND(COALESCE(p_events, '[]'), '$',
                    JSON_ARRAY('EV_SKIPPED', v_booking, v_request, p_slot, v_student, 0, 'SKIPPED', NULL, v_joined,
                               p_now, v_reason));
                ITERATE next_waiter;
            END IF;
            UPDATE ${slotbook_prefix}slot_seat
               SET status = 'HELD', booking_id = v_booking, student_id = v_student, held_until = v_held_until
             WHERE tenant_id = p_tenant AND slot_id = p_slot AND seq = v_seat AND status = 'FREE';
            IF ROW_COUNT() <> 1 THEN
                SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'promote: ledger rows disagree, the locked free seat is not FREE';
            END IF;
            INSERT INTO ${slotbook_prefix}booking (tenant_id, booking_id, request_id, slot_id, student_id, seat, status,
                                          held_until, created_at, updated_at)
                VALUES (p_tenant, v_booking, v_request, p_slot, v_student, v_seat, 'HELD', v_held_until, p_now, p_now);
            INSERT INTO ${slotbook_prefix}occupancy (tenant_id, resource_kind, resource_id, starts_at, ends_at, slot_id,
                                            booking_id, active)
                VALUES (p_tenant, 'STUDENT', v_student, v_start, v_end, p_slot, v_booking, TRUE);
            UPDATE ${slotbook_prefix}waiter SET status = 'PROMOTED', updated_at = p_now
             WHERE tenant_id = p_tenant AND request_id = v_request AND status = 'WAITING';
            SET p_events = JSON_ARRAY_APPEND(COALESCE(p_events, '[]'), '$',
                JSON_ARRAY('EV_PROMOTED', v_booking, v_request, p_slot, v_student, v_seat, 'HELD', v_held_until,
                           p_now, p_now, NULL));
            LEAVE walk;
        END LOOP next_waiter;
    END walk;
END//

-- Retires booking p_booking if it is a HELD booking whose hold ran out and still owns its seat:
-- locks the slot row, then the seat row; the seat becomes FREE, the booking EXPIRED (EV_EXPIRED), its
-- occupation inactive, and the seat is offered to the waitlist. o_done = 1 when this call retired it.
CREATE OR REPLACE PROCEDURE ${slotbook_prefix}retire(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_now DATETIME(6),
    p_hold_micros BIGINT,
    p_longest_micros BIGINT,
    p_max_upcoming INT,
    p_max_week INT,
    p_waitlist_cutoff_micros BIGINT,
    INOUT p_events LONGTEXT,
    OUT o_done INT)
MODIFIES SQL DATA
BEGIN
    DECLARE v_slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_seat INT;
    DECLARE v_held DATETIME(6);
    DECLARE v_n INT DEFAULT 0;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;

    SET o_done = 0;
    SELECT slot_id, seat, status, held_until INTO v_slot, v_seat, v_status, v_held
      FROM ${slotbook_prefix}booking WHERE tenant_id = p_tenant AND booking_id = p_booking;
    IF v_status = 'HELD' AND v_held <= p_now THEN
        SELECT COUNT(*) INTO v_n FROM ${slotbook_prefix}slot WHERE tenant_id = p_tenant AND slot_id = v_slot FOR UPDATE;
        SELECT COUNT(*) INTO v_n FROM ${slotbook_prefix}slot_seat
         WHERE tenant_id = p_tenant AND slot_id = v_slot AND seq = v_seat
           AND booking_id = p_booking AND status = 'HELD' AND held_until <= p_now
           FOR UPDATE;
        IF v_n = 1 THEN
            UPDATE ${slotbook_prefix}slot_seat SET status = 'FREE', booking_id = NULL, student_id = NULL, held_until = NULL
             WHERE tenant_id = p_tenant AND slot_id = v_slot AND seq = v_seat AND booking_id = p_booking;
            UPDATE ${slotbook_prefix}booking SET status = 'EXPIRED', updated_at = p_now
             WHERE tenant_id = p_tenant AND booking_id = p_booking AND status = 'HELD';
            IF ROW_COUNT() <> 1 THEN
                SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'retire: ledger rows disagree, the seat changed but the booking row did not';
            END IF;
            UPDATE ${slotbook_prefix}occupancy SET active = FALSE
             WHERE tenant_id = p_tenant AND booking_id = p_booking AND active = TRUE;
            CALL ${slotbook_prefix}note_booking(p_tenant, p_booking, 'EV_EXPIRED', p_events);
            SET o_done = 1;
            CALL ${slotbook_prefix}promote(p_tenant, v_slot, p_now, p_hold_micros, p_longest_micros, p_max_upcoming, p_max_week, p_waitlist_cutoff_micros, p_events);
        END IF;
    END IF;
END//

CREATE OR REPLACE PROCEDURE ${slotbook_prefix}schedule(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_coach VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_room VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_start DATETIME(6),
    p_end DATETIME(6),
    p_capacity INT,
    p_longest_micros BIGINT,
    p_opens_at DATETIME(6),
    p_closes_at DATETIME(6),
    p_buffer_seconds INT,
    p_cancel_policy VARCHAR(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_cancel_cutoff_seconds INT,
    p_week_start DATETIME(6),
    p_week_end DATETIME(6),
    p_buffer_students BOOLEAN)
MODIFIES SQL DATA
BEGIN
    DECLARE v_n INT DEFAULT 0;
    DECLARE v_dup INT DEFAULT 0;
    DECLARE v_conf LONGTEXT;
    DECLARE v_padded DATETIME(6);
    DECLARE r_tag VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_booking, r_request, r_slot, r_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_seat INT;
    DECLARE r_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_held, r_created, r_updated DATETIME(6);
    DECLARE r_kind VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_res VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_start, r_end DATETIME(6);
    DECLARE r_coach, r_room VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_capacity INT;
    DECLARE v_events LONGTEXT;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    IF p_capacity IS NULL OR p_capacity < 1 OR p_capacity > 100000 THEN
        SIGNAL SQLSTATE '22003' SET MESSAGE_TEXT = 'schedule: capacity must be between 1 and 100000';
    END IF;
    -- coach and room are taken until the end plus the buffer
    SET v_padded = p_end + INTERVAL COALESCE(p_buffer_seconds, 0) SECOND;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    START TRANSACTION;
    main: BEGIN
        -- 1. coach, then room (COACH < ROOM); the row is created on first use
        SELECT COUNT(*) INTO v_n FROM ${slotbook_prefix}resource_lock
         WHERE tenant_id = p_tenant AND resource_kind = 'COACH' AND resource_id = p_coach FOR UPDATE;
        IF v_n = 0 THEN
            INSERT INTO ${slotbook_prefix}resource_lock (tenant_id, resource_kind, resource_id) VALUES (p_tenant, 'COACH', p_coach)
                ON DUPLICATE KEY UPDATE resource_id = resource_id;
        END IF;
        SELECT COUNT(*) INTO v_n FROM ${slotbook_prefix}resource_lock
         WHERE tenant_id = p_tenant AND resource_kind = 'ROOM' AND resource_id = p_room FOR UPDATE;
        IF v_n = 0 THEN
            INSERT INTO ${slotbook_prefix}resource_lock (tenant_id, resource_kind, resource_id) VALUES (p_tenant, 'ROOM', p_room)
                ON DUPLICATE KEY UPDATE resource_id = resource_id;
        END IF;

        -- 2. the slot exists: answer it as stored
        SELECT slot_id, coach_id, room_id, starts_at, ends_at, capacity, status, opens_at, closes_at, buffer_seconds,
               cancel_policy, CAST(cancel_cutoff_seconds AS CHAR), IF(buffer_students, 'STUDENTS', NULL)
          INTO r_slot, r_coach, r_room, r_start, r_end, r_capacity, r_status, r_held, r_created, r_seat, r_kind, r_res,
               r_student
          FROM ${slotbook_prefix}slot WHERE tenant_id = p_tenant AND slot_id = p_slot;
        IF r_slot IS NOT NULL THEN
            SET r_tag = 'EXISTS';
            LEAVE main;
        END IF;

        -- 3. overlapping (padded) sessions of the coach or the room
        SELECT COUNT(*), JSON_ARRAYAGG(JSON_ARRAY(resource_kind, resource_id, slot_id, booking_id, starts_at, ends_at))
          INTO v_n, v_conf
          FROM ${slotbook_prefix}occupancy
         WHERE tenant_id = p_tenant
           AND ((resource_kind = 'COACH' AND resource_id = p_coach) OR (resource_kind = 'ROOM' AND resource_id = p_room))
           AND active = TRUE AND starts_at < v_padded AND ends_at > p_start
           AND starts_at > p_start - INTERVAL p_longest_micros MICROSECOND LOCK IN SHARE MODE;
        IF v_n > 0 THEN
            LEAVE main;
        END IF;

        -- 4. the slot (a concurrent insert of the same id answers EXISTS), its seats, its occupations
        BEGIN
            DECLARE CONTINUE HANDLER FOR 1062 SET v_dup = 1;
            INSERT INTO ${slotbook_prefix}slot (tenant_id, slot_id, coach_id, room_id, starts_at, ends_at, capacity, status,
                                       opens_at, closes_at, buffer_seconds, cancel_policy, cancel_cutoff_seconds,
                                       week_start, week_end, buffer_students)
                VALUES (p_tenant, p_slot, p_coach, p_room, p_start, p_end, p_capacity, 'OPEN', p_opens_at, p_closes_at,
                        COALESCE(p_buffer_seconds, 0), p_cancel_policy, p_cancel_cutoff_seconds, p_week_start,
                        p_week_end, COALESCE(p_buffer_students, FALSE));
        END;
        IF v_dup = 1 THEN
            SELECT slot_id, coach_id, room_id, starts_at, ends_at, capacity, status, opens_at, closes_at,
                   buffer_seconds, cancel_policy, CAST(cancel_cutoff_seconds AS CHAR),
                   IF(buffer_students, 'STUDENTS', NULL)
              INTO r_slot, r_coach, r_room, r_start, r_end, r_capacity, r_status, r_held, r_created, r_seat, r_kind,
                   r_res, r_student
              FROM ${slotbook_prefix}slot WHERE tenant_id = p_tenant AND slot_id = p_slot;
            SET r_tag = 'EXISTS';
            LEAVE main;
        END IF;
        -- seats 1..capacity from five digit tables; each digit only as far as the capacity needs
        INSERT INTO ${slotbook_prefix}slot_seat (tenant_id, slot_id, seq, status)
        SELECT p_tenant, p_slot, g.n, 'FREE'
          FROM (SELECT 1 + d0.d + 10 * d1.d + 100 * d2.d + 1000 * d3.d + 10000 * d4.d AS n
                  FROM (SELECT 0 AS d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4
                        UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9) d0
                  CROSS JOIN (SELECT 0 AS d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4
                        UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9) d1
                  CROSS JOIN (SELECT 0 AS d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4
                        UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9) d2
                  CROSS JOIN (SELECT 0 AS d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4
                        UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9) d3
                  CROSS JOIN (SELECT 0 AS d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4
                        UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9) d4
                 WHERE 10 * d1.d < p_capacity AND 100 * d2.d < p_capacity AND 1000 * d3.d < p_capacity
                   AND 10000 * d4.d < p_capacity) g
         WHERE g.n <= p_capacity;
        INSERT INTO ${slotbook_prefix}occupancy (tenant_id, resource_kind, resource_id, starts_at, ends_at, slot_id, booking_id, active)
            VALUES (p_tenant, 'COACH', p_coach, p_start, v_padded, p_slot, NULL, TRUE),
                   (p_tenant, 'ROOM', p_room, p_start, v_padded, p_slot, NULL, TRUE);
        SET r_tag = 'SCHEDULED', r_slot = p_slot, r_coach = p_coach, r_room = p_room, r_start = p_start,
            r_end = p_end, r_capacity = p_capacity, r_status = 'OPEN', r_held = p_opens_at, r_created = p_closes_at,
            r_seat = COALESCE(p_buffer_seconds, 0), r_kind = p_cancel_policy,
            r_res = CAST(p_cancel_cutoff_seconds AS CHAR),
            r_student = IF(COALESCE(p_buffer_students, FALSE), 'STUDENTS', NULL);
    END main;
    COMMIT;

    SELECT tag, booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at,
           res_kind, res_id, starts_at, ends_at, coach_id, room_id, capacity
      FROM (SELECT 0 AS grp, 0 AS ord, r_tag AS tag, r_booking AS booking_id, r_request AS request_id,
                   r_slot AS slot_id, r_student AS student_id, r_seat AS seat, r_status AS status,
                   r_held AS held_until, r_created AS created_at, r_updated AS updated_at, r_kind AS res_kind,
                   r_res AS res_id, r_start AS starts_at, r_end AS ends_at, r_coach AS coach_id, r_room AS room_id,
                   r_capacity AS capacity
              FROM DUAL WHERE r_tag IS NOT NULL
            UNION ALL
            SELECT 1, 0, 'CONFLICT', c.booking_id, NULL, c.slot_id, NULL, NULL, NULL, NULL, NULL, NULL,
                   c.res_kind, c.res_id, c.starts_at, c.ends_at, NULL, NULL, NULL
              FROM JSON_TABLE(v_conf, '$[*]' COLUMNS (
                       res_kind VARCHAR(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
                       res_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                       slot_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[2]',
                       booking_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[3]',
                       starts_at DATETIME(6) PATH '$[4]',
                       ends_at DATETIME(6) PATH '$[5]')) c
            UNION ALL
            SELECT 2, e.ord, e.tag, e.booking_id, e.request_id, e.slot_id, e.student_id, e.seat, e.status,
                   e.held_until, e.created_at, e.updated_at, e.res_kind, NULL, NULL, NULL, NULL, NULL, NULL
              FROM JSON_TABLE(v_events, '$[*]' COLUMNS (
                       ord FOR ORDINALITY,
                       tag VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
                       booking_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                       request_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[2]',
                       slot_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[3]',
                       student_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[4]',
                       seat INT PATH '$[5]',
                       status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[6]',
                       held_until DATETIME(6) PATH '$[7]',
                       created_at DATETIME(6) PATH '$[8]',
                       updated_at DATETIME(6) PATH '$[9]',
                       res_kind VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[10]')) e) x
     ORDER BY grp, ord, res_kind, res_id, starts_at;
END//


CREATE OR REPLACE PROCEDURE ${slotbook_prefix}hold(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_request VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_now DATETIME(6),
    p_hold_micros BIGINT,
    p_longest_micros BIGINT,
    p_gate_held BOOLEAN,
    p_waitlist BOOLEAN,
    p_max_upcoming INT,
    p_max_week INT,
    p_waitlist_cutoff_micros BIGINT)
MODIFIES SQL DATA
BEGIN
    DECLARE v_now DATETIME(6) DEFAULT COALESCE(p_now, UTC_TIMESTAMP(6));
    DECLARE v_held_until DATETIME(6);
    DECLARE v_slot_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_start, v_end, v_lowest, v_opens, v_closes, v_week_start, v_week_end, v_student_end DATETIME(6);
    DECLARE v_buffer INT DEFAULT 0;
    DECLARE v_buffer_students BOOLEAN DEFAULT FALSE;
    DECLARE v_n, v_up, v_week INT DEFAULT 0;
    DECLARE v_conf, v_cand LONGTEXT;
    DECLARE v_own_dead, v_old, v_displaced, v_bid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_refuse VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_seq INT;
    DECLARE v_i INT DEFAULT 0;
    DECLARE v_done INT DEFAULT 0;
    DECLARE v_round INT DEFAULT 0;
    DECLARE v_skip INT DEFAULT 1;
    DECLARE v_taken INT DEFAULT 0;
    DECLARE v_none INT DEFAULT 0;
    DECLARE v_waiting INT DEFAULT 0;
    DECLARE v_waitlist INT DEFAULT IF(COALESCE(p_waitlist, FALSE), 1, 0);
    DECLARE r_tag VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_booking, r_request, r_slot, r_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_seat INT;
    DECLARE r_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_held, r_created, r_updated DATETIME(6);
    DECLARE r_kind VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_res VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_start, r_end DATETIME(6);
    DECLARE r_coach, r_room VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_capacity INT;
    DECLARE v_events LONGTEXT;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    IF p_status IS NULL OR p_status NOT IN ('HELD', 'CONFIRMED') THEN
        SIGNAL SQLSTATE '22023' SET MESSAGE_TEXT = 'hold: p_status must be HELD or CONFIRMED';
    END IF;
    SET v_held_until = v_now + INTERVAL p_hold_micros MICROSECOND;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    START TRANSACTION;
    main: BEGIN
        -- 1. the slot
        SELECT status, starts_at, ends_at, opens_at, closes_at, week_start, week_end, buffer_seconds, buffer_students
          INTO v_slot_status, v_start, v_end, v_opens, v_closes, v_week_start, v_week_end, v_buffer, v_buffer_students
          FROM ${slotbook_prefix}slot WHERE tenant_id = p_tenant AND slot_id = p_slot;
        IF v_slot_status IS NULL THEN
            SET r_tag = 'NOT_FOUND';
            LEAVE main;
        END IF;
        -- the student's time: the session, and its buffer when the slot pads its students too
        SET v_student_end = IF(v_buffer_students, v_end + INTERVAL v_buffer SECOND, v_end);

        -- 2. cancelled or over, 3. outside the booking window, 4. full by committed seats (answered
        --    without locking anything; skipped when the gate counted this request or it may wait; the
        --    primary key would walk every sold seat of a hot slot: name the index that finds a free or
        --    ran-out seat at once): only a replay of this request is answered otherwise
        IF v_slot_status <> 'OPEN' OR v_now >= v_end THEN
            SET v_refuse = 'NOT_OPEN';
        ELSEIF v_opens IS NOT NULL AND v_now < v_opens THEN
            SET v_refuse = 'NOT_OPEN_YET';
        ELSEIF v_closes IS NOT NULL AND v_now >= v_closes THEN
            SET v_refuse = 'BOOKING_CLOSED';
        ELSEIF NOT COALESCE(p_gate_held, FALSE) AND v_waitlist = 0
           AND NOT EXISTS (SELECT 1 FROM ${slotbook_prefix}slot_seat FORCE INDEX (${slotbook_prefix}slot_seat_claim_ix)
                            WHERE tenant_id = p_tenant AND slot_id = p_slot AND status = 'FREE')
           AND NOT EXISTS (SELECT 1 FROM ${slotbook_prefix}slot_seat FORCE INDEX (${slotbook_prefix}slot_seat_held_ix)
                            WHERE tenant_id = p_tenant AND slot_id = p_slot AND status = 'HELD'
                              AND held_until <= v_now) THEN
            SET v_refuse = 'FULL';
        END IF;
        IF v_refuse IS NOT NULL THEN
            SELECT booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at
              INTO r_booking, r_request, r_slot, r_student, r_seat, r_status, r_held, r_created, r_updated
              FROM ${slotbook_prefix}booking WHERE tenant_id = p_tenant AND request_id = p_request;
            IF r_booking IS NOT NULL THEN
                SET r_tag = 'REPLAY';
                LEAVE main;
            END IF;
            CALL ${slotbook_prefix}waiter_row(p_tenant, p_request, r_booking, r_request, r_slot, r_student, r_seat,
                                          r_status, r_created, r_updated, r_kind);
            IF r_booking IS NOT NULL THEN
                SET r_tag = 'WAITLISTED_REPLAY';
                LEAVE main;
            END IF;
            IF v_refuse = 'FULL' THEN
                SELECT booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at
                  INTO r_booking, r_request, r_slot, r_student, r_seat, r_status, r_held, r_created, r_updated
                  FROM ${slotbook_prefix}booking WHERE tenant_id = p_tenant AND slot_id = p_slot AND student_id = p_student AND status IN ('HELD', 'CONFIRMED') LIMIT 1;
                IF r_booking IS NOT NULL AND (r_status = 'CONFIRMED' OR v_now < r_held) THEN
                    SET r_tag = 'ALREADY';
                    LEAVE main;
                END IF;
                SET r_booking = NULL, r_request = NULL, r_slot = NULL, r_student = NULL, r_seat = NULL, r_status = NULL, r_held = NULL, r_created = NULL, r_updated = NULL, r_kind = NULL;
            END IF;
            SET r_tag = v_refuse, r_slot = p_slot;
            IF v_refuse = 'NOT_OPEN' THEN
                SET r_status = v_slot_status;
            ELSEIF v_refuse = 'NOT_OPEN_YET' THEN
                SET r_held = v_opens;
            ELSEIF v_refuse = 'BOOKING_CLOSED' THEN
                SET r_held = v_closes;
            ELSE
                SET r_slot = NULL;
            END IF;
            LEAVE main;
        END IF;

        -- 5. the student's lock. What it guards (the student's bookings, waitlist entries and
        --    occupations) is read from here on with locking reads (see the note at the top)
        SELECT COUNT(*) INTO v_n FROM ${slotbook_prefix}resource_lock
         WHERE tenant_id = p_tenant AND resource_kind = 'STUDENT' AND resource_id = p_student FOR UPDATE;
        IF v_n = 0 THEN
            INSERT INTO ${slotbook_prefix}resource_lock (tenant_id, resource_kind, resource_id) VALUES (p_tenant, 'STUDENT', p_student)
                ON DUPLICATE KEY UPDATE resource_id = resource_id;
        END IF;

        -- 6. a replay of this request (any slot, any status; the caller checks slot and student):
        --    its booking, else its waitlist entry
        SELECT booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at
              INTO r_booking, r_request, r_slot, r_student, r_seat, r_status, r_held, r_created, r_updated
              FROM ${slotbook_prefix}booking WHERE tenant_id = p_tenant AND request_id = p_request LOCK IN SHARE MODE;
        IF r_booking IS NOT NULL THEN
            SET r_tag = 'REPLAY';
            LEAVE main;
        END IF;
        CALL ${slotbook_prefix}waiter_row(p_tenant, p_request, r_booking, r_request, r_slot, r_student, r_seat,
                                          r_status, r_created, r_updated, r_kind);
        IF r_booking IS NOT NULL THEN
            SET r_tag = 'WAITLISTED_REPLAY';
            LEAVE main;
        END IF;

        -- 7. the student's own booking of this slot: live answers ALREADY, a dead hold is retired below
        SELECT booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at
              INTO r_booking, r_request, r_slot, r_student, r_seat, r_status, r_held, r_created, r_updated
              FROM ${slotbook_prefix}booking WHERE tenant_id = p_tenant AND slot_id = p_slot AND student_id = p_student AND status IN ('HELD', 'CONFIRMED') LIMIT 1 LOCK IN SHARE MODE;
        IF r_booking IS NOT NULL THEN
            IF r_status = 'CONFIRMED' OR v_now < r_held THEN
                SET r_tag = 'ALREADY';
                LEAVE main;
            END IF;
            SET v_own_dead = r_booking;
            SET r_booking = NULL, r_request = NULL, r_slot = NULL, r_student = NULL, r_seat = NULL, r_status = NULL, r_held = NULL, r_created = NULL, r_updated = NULL, r_kind = NULL;
        END IF;

        -- 8. the student's occupations overlapping his time in this slot; a hold that ran out blocks nothing
        SET v_lowest = v_start - INTERVAL p_longest_micros MICROSECOND;
        SELECT COUNT(*), JSON_ARRAYAGG(JSON_ARRAY(o.resource_kind, o.resource_id, o.slot_id, o.booking_id, o.starts_at, o.ends_at))
          INTO v_n, v_conf
          FROM ${slotbook_prefix}occupancy o
         WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = p_student AND o.active = TRUE
           AND o.starts_at < v_student_end AND o.ends_at > v_start AND o.starts_at > v_lowest
           AND NOT EXISTS (SELECT 1 FROM ${slotbook_prefix}booking b
                            WHERE b.tenant_id = p_tenant AND b.booking_id = o.booking_id
                              AND b.status = 'HELD' AND b.held_until <= v_now) LOCK IN SHARE MODE;
        IF v_n > 0 THEN
            LEAVE main;
        END IF;
        SET v_conf = NULL;

        -- 9. the limits, over the student's live bookings: sessions not ended yet, then this slot's week
        IF p_max_upcoming > 0 THEN
            SELECT COUNT(*) INTO v_up
              FROM ${slotbook_prefix}occupancy o
              WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = p_student
               AND o.active = TRUE AND o.starts_at > v_now - INTERVAL p_longest_micros MICROSECOND
               AND o.ends_at > v_now
               AND NOT EXISTS (SELECT 1 FROM ${slotbook_prefix}booking b
                                WHERE b.tenant_id = p_tenant AND b.booking_id = o.booking_id
                                  AND b.status = 'HELD' AND b.held_until <= v_now) LOCK IN SHARE MODE;
            IF v_up >= p_max_upcoming THEN
                SET r_tag = 'LIMIT', r_kind = 'UPCOMING', r_seat = p_max_upcoming;
                LEAVE main;
            END IF;
        END IF;
        IF p_max_week > 0 AND v_week_start IS NOT NULL THEN
            SELECT COUNT(*) INTO v_week
              FROM ${slotbook_prefix}occupancy o
              WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = p_student
               AND o.active = TRUE AND o.starts_at >= v_week_start AND o.starts_at < v_week_end
               AND NOT EXISTS (SELECT 1 FROM ${slotbook_prefix}booking b
                                WHERE b.tenant_id = p_tenant AND b.booking_id = o.booking_id
                                  AND b.status = 'HELD' AND b.held_until <= v_now) LOCK IN SHARE MODE;
            IF v_week >= p_max_week THEN
                SET r_tag = 'LIMIT', r_kind = 'WEEKLY', r_seat = p_max_week;
                LEAVE main;
            END IF;
        END IF;

        -- 10. retire the student's dead holds: his own of this slot, then those overlapping it (in the
        --     order they were taken); each freed seat is offered to its slot's waitlist
        SELECT JSON_ARRAYAGG(c.booking_id ORDER BY c.k, c.id) INTO v_cand
          FROM (SELECT 0 AS k, 0 AS id, v_own_dead AS booking_id FROM DUAL WHERE v_own_dead IS NOT NULL
                UNION ALL
                SELECT 1, o.id, b.booking_id
                  FROM ${slotbook_prefix}occupancy o
                  JOIN ${slotbook_prefix}booking b ON b.tenant_id = o.tenant_id AND b.booking_id = o.booking_id
                 WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = p_student
                   AND o.active = TRUE AND o.starts_at < v_student_end AND o.ends_at > v_start AND o.starts_at > v_lowest
                   AND b.status = 'HELD' AND b.held_until <= v_now
                   AND b.booking_id <> COALESCE(v_own_dead, '')) c;
        WHILE v_cand IS NOT NULL AND v_i < JSON_LENGTH(v_cand) DO
            SET v_bid = JSON_UNQUOTE(JSON_EXTRACT(v_cand, CONCAT('$[', v_i, ']')));
            CALL ${slotbook_prefix}retire(p_tenant, v_bid, v_now, p_hold_micros, p_longest_micros, p_max_upcoming, p_max_week, p_waitlist_cutoff_micros, v_events, v_done);
            SET v_i = v_i + 1;
        END WHILE;

        -- 11. the claim, as JdbcSeatLedger.claimSeat: the first free seat, else (only while nobody waits
        --     for the slot) the oldest ran-out hold, skipping seats other claims have locked; then once
        --     more waiting for them
        SET v_waiting = EXISTS (SELECT 1 FROM ${slotbook_prefix}waiter FORCE INDEX (${slotbook_prefix}waiter_slot_ix)
                                 WHERE tenant_id = p_tenant AND slot_id = p_slot AND status = 'WAITING');
        claim: WHILE v_taken = 0 AND v_round < 8 DO
            SET v_round = v_round + 1, v_skip = 1;
            attempt: LOOP
                SET v_seq = NULL, v_old = NULL;
                IF v_skip = 1 THEN
                    SELECT seq INTO v_seq FROM ${slotbook_prefix}slot_seat FORCE INDEX (${slotbook_prefix}slot_seat_claim_ix)
                     WHERE tenant_id = p_tenant AND slot_id = p_slot AND status = 'FREE'
                     ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED;
                ELSE
                    SELECT seq INTO v_seq FROM ${slotbook_prefix}slot_seat FORCE INDEX (${slotbook_prefix}slot_seat_claim_ix)
                     WHERE tenant_id = p_tenant AND slot_id = p_slot AND status = 'FREE'
                     ORDER BY seq LIMIT 1 FOR UPDATE;
                END IF;
                IF v_seq IS NOT NULL THEN
                    UPDATE ${slotbook_prefix}slot_seat
                       SET status = p_status, booking_id = p_booking, student_id = p_student, held_until = v_held_until
                     WHERE tenant_id = p_tenant AND slot_id = p_slot AND seq = v_seq AND status = 'FREE';
                    IF ROW_COUNT() = 1 THEN
                        SET v_taken = 1;
                    END IF;
                    LEAVE attempt;
                END IF;
                IF v_waiting = 0 THEN
                    IF v_skip = 1 THEN
                        SELECT seq, booking_id INTO v_seq, v_old FROM ${slotbook_prefix}slot_seat FORCE INDEX (${slotbook_prefix}slot_seat_held_ix)
                         WHERE tenant_id = p_tenant AND slot_id = p_slot AND status = 'HELD' AND held_until <= v_now
                         ORDER BY held_until LIMIT 1 FOR UPDATE SKIP LOCKED;
                    ELSE
                        SELECT seq, booking_id INTO v_seq, v_old FROM ${slotbook_prefix}slot_seat FORCE INDEX (${slotbook_prefix}slot_seat_held_ix)
                         WHERE tenant_id = p_tenant AND slot_id = p_slot AND status = 'HELD' AND held_until <= v_now
                         ORDER BY held_until LIMIT 1 FOR UPDATE;
                    END IF;
                    IF v_seq IS NOT NULL THEN
                        UPDATE ${slotbook_prefix}slot_seat
                           SET status = p_status, booking_id = p_booking, student_id = p_student, held_until = v_held_until
                         WHERE tenant_id = p_tenant AND slot_id = p_slot AND seq = v_seq
                           AND status = 'HELD' AND booking_id = v_old AND held_until <= v_now;
                        IF ROW_COUNT() = 1 THEN
                            SET v_taken = 1, v_displaced = v_old;
                        END IF;
                        LEAVE attempt;
                    END IF;
                END IF;
                IF v_skip = 0 THEN
                    SET v_none = 1;
                    LEAVE claim;
                END IF;
                SET v_skip = 0;
            END LOOP attempt;
        END WHILE claim;

        -- 12. no seat: the waitlist, when asked for and before the cutoff. Under the slot row's lock (which
        --     every seat-freeing call takes before it promotes) a seat freed meanwhile is claimed, else
        --     the request waits.
        IF v_none = 1 THEN
            IF v_waitlist = 0 OR v_now >= v_start - INTERVAL p_waitlist_cutoff_micros MICROSECOND THEN
                SET r_tag = 'FULL';
                LEAVE main;
            END IF;
            SELECT status INTO v_slot_status FROM ${slotbook_prefix}slot WHERE tenant_id = p_tenant AND slot_id = p_slot FOR UPDATE;
            IF v_slot_status <> 'OPEN' THEN
                SET r_tag = 'NOT_OPEN', r_slot = p_slot, r_status = v_slot_status;
                LEAVE main;
            END IF;
            SET v_seq = NULL;
            SELECT seq INTO v_seq FROM ${slotbook_prefix}slot_seat FORCE INDEX (${slotbook_prefix}slot_seat_claim_ix)
             WHERE tenant_id = p_tenant AND slot_id = p_slot AND status = 'FREE'
             ORDER BY seq LIMIT 1 FOR UPDATE;
            IF v_seq IS NOT NULL THEN
                UPDATE ${slotbook_prefix}slot_seat
                   SET status = p_status, booking_id = p_booking, student_id = p_student, held_until = v_held_until
                 WHERE tenant_id = p_tenant AND slot_id = p_slot AND seq = v_seq AND status = 'FREE';
                IF ROW_COUNT() = 1 THEN
                    SET v_taken = 1;
                END IF;
            END IF;
            IF v_taken = 0 THEN
                SET v_bid = NULL;
                SELECT request_id INTO v_bid FROM ${slotbook_prefix}waiter FORCE INDEX (${slotbook_prefix}waiter_student_ix)
                 WHERE tenant_id = p_tenant AND slot_id = p_slot AND student_id = p_student AND status = 'WAITING'
                 LIMIT 1 LOCK IN SHARE MODE;
                IF v_bid IS NOT NULL THEN
                    CALL ${slotbook_prefix}waiter_row(p_tenant, v_bid, r_booking, r_request, r_slot, r_student, r_seat,
                                              r_status, r_created, r_updated, r_kind);
                    SET r_tag = 'WAITLISTED_REPLAY';
                    LEAVE main;
                END IF;
                INSERT INTO ${slotbook_prefix}waiter (tenant_id, request_id, slot_id, student_id, booking_id, status, reason,
                                             joined_at, updated_at)
                    VALUES (p_tenant, p_request, p_slot, p_student, p_booking, 'WAITING', NULL, v_now, v_now);
                CALL ${slotbook_prefix}waiter_row(p_tenant, p_request, r_booking, r_request, r_slot, r_student, r_seat,
                                          r_status, r_created, r_updated, r_kind);
                SET r_tag = 'WAITLISTED';
                LEAVE main;
            END IF;
        END IF;
        IF v_taken = 0 THEN
            SIGNAL SQLSTATE '40001' SET MESSAGE_TEXT = 'hold: the seat rows kept changing under the claim';
        END IF;
        IF v_displaced IS NOT NULL THEN
            UPDATE ${slotbook_prefix}booking SET status = 'EXPIRED', updated_at = v_now
             WHERE tenant_id = p_tenant AND booking_id = v_displaced AND status = 'HELD';
            IF ROW_COUNT() <> 1 THEN
                SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'hold: ledger rows disagree, the displaced booking was not HELD';
            END IF;
            UPDATE ${slotbook_prefix}occupancy SET active = FALSE
             WHERE tenant_id = p_tenant AND booking_id = v_displaced AND active = TRUE;
            CALL ${slotbook_prefix}note_booking(p_tenant, v_displaced, 'EV_EXPIRED', v_events);
        END IF;

        -- 13. the booking and the student's occupation
        INSERT INTO ${slotbook_prefix}booking (tenant_id, booking_id, request_id, slot_id, student_id, seat, status, held_until,
                                      created_at, updated_at)
            VALUES (p_tenant, p_booking, p_request, p_slot, p_student, v_seq, p_status, v_held_until, v_now, v_now);
        INSERT INTO ${slotbook_prefix}occupancy (tenant_id, resource_kind, resource_id, starts_at, ends_at, slot_id, booking_id, active)
            VALUES (p_tenant, 'STUDENT', p_student, v_start, v_student_end, p_slot, p_booking, TRUE);
        SET r_tag = 'HELD', r_booking = p_booking, r_request = p_request, r_slot = p_slot, r_student = p_student,
            r_seat = v_seq, r_status = p_status, r_held = v_held_until, r_created = v_now, r_updated = v_now;
        SET v_events = JSON_ARRAY_APPEND(COALESCE(v_events, '[]'), '$',
            JSON_ARRAY(IF(p_status = 'CONFIRMED', 'EV_CONFIRMED', 'EV_HELD'), r_booking, r_request, r_slot, r_student,
                       r_seat, r_status, r_held, r_created, r_updated, NULL));
    END main;
    COMMIT;

    SELECT tag, booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at,
           res_kind, res_id, starts_at, ends_at, coach_id, room_id, capacity
      FROM (SELECT 0 AS grp, 0 AS ord, r_tag AS tag, r_booking AS booking_id, r_request AS request_id,
                   r_slot AS slot_id, r_student AS student_id, r_seat AS seat, r_status AS status,
                   r_held AS held_until, r_created AS created_at, r_updated AS updated_at, r_kind AS res_kind,
                   r_res AS res_id, r_start AS starts_at, r_end AS ends_at, r_coach AS coach_id, r_room AS room_id,
                   r_capacity AS capacity
              FROM DUAL WHERE r_tag IS NOT NULL
            UNION ALL
            SELECT 1, 0, 'CONFLICT', c.booking_id, NULL, c.slot_id, NULL, NULL, NULL, NULL, NULL, NULL,
                   c.res_kind, c.res_id, c.starts_at, c.ends_at, NULL, NULL, NULL
              FROM JSON_TABLE(v_conf, '$[*]' COLUMNS (
                       res_kind VARCHAR(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
                       res_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                       slot_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[2]',
                       booking_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[3]',
                       starts_at DATETIME(6) PATH '$[4]',
                       ends_at DATETIME(6) PATH '$[5]')) c
            UNION ALL
            SELECT 2, e.ord, e.tag, e.booking_id, e.request_id, e.slot_id, e.student_id, e.seat, e.status,
                   e.held_until, e.created_at, e.updated_at, e.res_kind, NULL, NULL, NULL, NULL, NULL, NULL
              FROM JSON_TABLE(v_events, '$[*]' COLUMNS (
                       ord FOR ORDINALITY,
                       tag VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
                       booking_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                       request_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[2]',
                       slot_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[3]',
                       student_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[4]',
                       seat INT PATH '$[5]',
                       status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[6]',
                       held_until DATETIME(6) PATH '$[7]',
                       created_at DATETIME(6) PATH '$[8]',
                       updated_at DATETIME(6) PATH '$[9]',
                       res_kind VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[10]')) e) x
     ORDER BY grp, ord, res_kind, res_id, starts_at;
END//


CREATE OR REPLACE PROCEDURE ${slotbook_prefix}confirm(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_now DATETIME(6),
    p_hold_micros BIGINT,
    p_longest_micros BIGINT,
    p_max_upcoming INT,
    p_max_week INT,
    p_waitlist_cutoff_micros BIGINT)
MODIFIES SQL DATA
BEGIN
    DECLARE v_now DATETIME(6) DEFAULT COALESCE(p_now, UTC_TIMESTAMP(6));
    DECLARE v_slot, v_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_held DATETIME(6);
    DECLARE v_seat INT;
    DECLARE v_n INT DEFAULT 0;
    DECLARE v_done INT DEFAULT 0;
    DECLARE r_tag VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_booking, r_request, r_slot, r_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_seat INT;
    DECLARE r_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_held, r_created, r_updated DATETIME(6);
    DECLARE r_kind VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_res VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_start, r_end DATETIME(6);
    DECLARE r_coach, r_room VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_capacity INT;
    DECLARE v_events LONGTEXT;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    START TRANSACTION;
    main: BEGIN
        -- find the booking; a hold that ran out is retired (slot row, then seat row: its seat goes to
        -- the waitlist), any other is read again under its seat row's lock (every change of a booking
        -- goes through its seat row first, so nothing changes it from here on)
        SELECT slot_id, seat, student_id, status, held_until INTO v_slot, v_seat, v_student, v_status, v_held
          FROM ${slotbook_prefix}booking WHERE tenant_id = p_tenant AND booking_id = p_booking;
        IF v_slot IS NULL OR v_student <> p_student THEN
            SET r_tag = 'NOT_FOUND';
            LEAVE main;
        END IF;
        IF v_status = 'HELD' AND v_held <= v_now THEN
            CALL ${slotbook_prefix}retire(p_tenant, p_booking, v_now, p_hold_micros, p_longest_micros, p_max_upcoming, p_max_week, p_waitlist_cutoff_micros, v_events, v_done);
        ELSE
            SELECT COUNT(*) INTO v_n FROM ${slotbook_prefix}slot_seat
             WHERE tenant_id = p_tenant AND slot_id = v_slot AND seq = v_seat FOR UPDATE;
        END IF;
        SELECT booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at
          INTO r_booking, r_request, r_slot, r_student, r_seat, r_status, r_held, r_created, r_updated
          FROM ${slotbook_prefix}booking WHERE tenant_id = p_tenant AND booking_id = p_booking LOCK IN SHARE MODE;
        IF r_status = 'CONFIRMED' THEN
            SET r_tag = 'CONFIRMED';
        ELSEIF r_status = 'CANCELLED' THEN
            SET r_booking = NULL, r_request = NULL, r_slot = NULL, r_student = NULL, r_seat = NULL, r_status = NULL, r_held = NULL, r_created = NULL, r_updated = NULL, r_kind = NULL;
            SET r_tag = 'ALREADY_CANCELLED';
        ELSEIF r_status = 'EXPIRED' THEN
            SET r_tag = 'HOLD_EXPIRED';
        ELSEIF v_now < r_held THEN
            UPDATE ${slotbook_prefix}slot_seat SET status = 'CONFIRMED'
             WHERE tenant_id = p_tenant AND slot_id = v_slot AND seq = v_seat AND booking_id = p_booking
               AND status = 'HELD' AND held_until > v_now;
            IF ROW_COUNT() <> 1 THEN
                SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'confirm: ledger rows disagree, the HELD booking does not own its seat';
            END IF;
            UPDATE ${slotbook_prefix}booking SET status = 'CONFIRMED', updated_at = v_now
             WHERE tenant_id = p_tenant AND booking_id = p_booking AND status = 'HELD';
            IF ROW_COUNT() <> 1 THEN
                SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'confirm: ledger rows disagree, the seat changed but the booking row did not';
            END IF;
            SET r_tag = 'CONFIRMED', r_status = 'CONFIRMED', r_updated = v_now;
            CALL ${slotbook_prefix}note_booking(p_tenant, p_booking, 'EV_CONFIRMED', v_events);
        ELSE
            SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'confirm: ledger rows disagree, a ran-out hold does not own its seat';
        END IF;
    END main;
    COMMIT;

    SELECT tag, booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at,
           res_kind, res_id, starts_at, ends_at, coach_id, room_id, capacity
      FROM (SELECT 0 AS grp, 0 AS ord, r_tag AS tag, r_booking AS booking_id, r_request AS request_id,
                   r_slot AS slot_id, r_student AS student_id, r_seat AS seat, r_status AS status,
                   r_held AS held_until, r_created AS created_at, r_updated AS updated_at, r_kind AS res_kind,
                   r_res AS res_id, r_start AS starts_at, r_end AS ends_at, r_coach AS coach_id, r_room AS room_id,
                   r_capacity AS capacity
              FROM DUAL WHERE r_tag IS NOT NULL
            UNION ALL
            SELECT 2, e.ord, e.tag, e.booking_id, e.request_id, e.slot_id, e.student_id, e.seat, e.status,
                   e.held_until, e.created_at, e.updated_at, e.res_kind, NULL, NULL, NULL, NULL, NULL, NULL
              FROM JSON_TABLE(v_events, '$[*]' COLUMNS (
                       ord FOR ORDINALITY,
                       tag VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
                       booking_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                       request_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[2]',
                       slot_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[3]',
                       student_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[4]',
                       seat INT PATH '$[5]',
                       status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[6]',
                       held_until DATETIME(6) PATH '$[7]',
                       created_at DATETIME(6) PATH '$[8]',
                       updated_at DATETIME(6) PATH '$[9]',
                       res_kind VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[10]')) e) x
     ORDER BY grp, ord, res_kind, res_id, starts_at;
END//

CREATE OR REPLACE PROCEDURE ${slotbook_prefix}cancel(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_now DATETIME(6),
    p_cancel_policy VARCHAR(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_cancel_cutoff_micros BIGINT,
    p_hold_micros BIGINT,
    p_longest_micros BIGINT,
    p_max_upcoming INT,
    p_max_week INT,
    p_waitlist_cutoff_micros BIGINT)
MODIFIES SQL DATA
BEGIN
    DECLARE v_now DATETIME(6) DEFAULT COALESCE(p_now, UTC_TIMESTAMP(6));
    DECLARE v_slot, v_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_policy VARCHAR(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_slot_policy VARCHAR(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_slot_cutoff INT;
    DECLARE v_held, v_start, v_cutoff DATETIME(6);
    DECLARE v_seat INT;
    DECLARE v_late INT DEFAULT 0;
    DECLARE v_n INT DEFAULT 0;
    DECLARE v_done INT DEFAULT 0;
    DECLARE r_tag VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_booking, r_request, r_slot, r_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_seat INT;
    DECLARE r_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_held, r_created, r_updated DATETIME(6);
    DECLARE r_kind VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_res VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_start, r_end DATETIME(6);
    DECLARE r_coach, r_room VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_capacity INT;
    DECLARE v_events LONGTEXT;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    START TRANSACTION;
    main: BEGIN
        -- find the booking (p_student NULL: staff, any booking of the tenant)
        SELECT slot_id, seat, student_id, status, held_until INTO v_slot, v_seat, v_student, v_status, v_held
          FROM ${slotbook_prefix}booking WHERE tenant_id = p_tenant AND booking_id = p_booking;
        IF v_slot IS NULL OR (p_student IS NOT NULL AND v_student <> p_student) THEN
            SET r_tag = 'NOT_FOUND';
            LEAVE main;
        END IF;
        IF v_status = 'HELD' AND v_held <= v_now THEN
            -- the hold already ran out: nothing to cancel, but retire it now (its seat goes to the waitlist)
            CALL ${slotbook_prefix}retire(p_tenant, p_booking, v_now, p_hold_micros, p_longest_micros, p_max_upcoming, p_max_week, p_waitlist_cutoff_micros, v_events, v_done);
        ELSEIF v_status IN ('HELD', 'CONFIRMED') THEN
            -- slot row, then seat row, then the booking again
            SELECT starts_at, cancel_policy, cancel_cutoff_seconds INTO v_start, v_slot_policy, v_slot_cutoff
              FROM ${slotbook_prefix}slot WHERE tenant_id = p_tenant AND slot_id = v_slot FOR UPDATE;
            SELECT COUNT(*) INTO v_n FROM ${slotbook_prefix}slot_seat
             WHERE tenant_id = p_tenant AND slot_id = v_slot AND seq = v_seat FOR UPDATE;
        END IF;
        SELECT booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at
          INTO r_booking, r_request, r_slot, r_student, r_seat, r_status, r_held, r_created, r_updated
          FROM ${slotbook_prefix}booking WHERE tenant_id = p_tenant AND booking_id = p_booking LOCK IN SHARE MODE;
        IF r_status NOT IN ('HELD', 'CONFIRMED') OR v_start IS NULL THEN
            SET r_tag = 'ALREADY_CANCELLED';
            LEAVE main;
        END IF;
        -- the policy: the slot's own, else the tenant's; late from the cutoff before the start on
        IF v_slot_policy IS NOT NULL THEN
            SET v_policy = v_slot_policy,
                v_cutoff = IF(v_slot_cutoff IS NULL, NULL, v_start - INTERVAL v_slot_cutoff SECOND);
        ELSE
            SET v_policy = p_cancel_policy,
                v_cutoff = IF(p_cancel_cutoff_micros IS NULL, NULL, v_start - INTERVAL p_cancel_cutoff_micros MICROSECOND);
        END IF;
        SET v_late = IF(v_cutoff IS NOT NULL AND v_now >= v_cutoff, 1, 0);
        IF v_late = 1 AND v_policy = 'REFUSE' AND p_student IS NOT NULL THEN
            SET r_booking = NULL, r_request = NULL, r_slot = NULL, r_student = NULL, r_seat = NULL, r_status = NULL, r_held = NULL, r_created = NULL, r_updated = NULL, r_kind = NULL;
            SET r_tag = 'TOO_LATE', r_held = v_cutoff;
            LEAVE main;
        END IF;
        UPDATE ${slotbook_prefix}slot_seat SET status = 'FREE', booking_id = NULL, student_id = NULL, held_until = NULL
         WHERE tenant_id = p_tenant AND slot_id = v_slot AND seq = v_seat AND booking_id = p_booking
           AND status IN ('HELD', 'CONFIRMED');
        IF ROW_COUNT() <> 1 THEN
            SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'cancel: ledger rows disagree, the active booking does not own its seat';
        END IF;
        UPDATE ${slotbook_prefix}booking SET status = 'CANCELLED', updated_at = v_now, late_cancel = (v_late = 1)
         WHERE tenant_id = p_tenant AND booking_id = p_booking AND status IN ('HELD', 'CONFIRMED');
        IF ROW_COUNT() <> 1 THEN
            SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'cancel: ledger rows disagree, the seat changed but the booking row did not';
        END IF;
        UPDATE ${slotbook_prefix}occupancy SET active = FALSE
         WHERE tenant_id = p_tenant AND booking_id = p_booking AND active = TRUE;
        SET r_tag = 'CANCELLED', r_status = 'CANCELLED', r_updated = v_now, r_kind = IF(v_late = 1, 'LATE', NULL);
        CALL ${slotbook_prefix}note_booking(p_tenant, p_booking, IF(v_late = 1, 'EV_LATE_CANCELLED', 'EV_CANCELLED'), v_events);
        CALL ${slotbook_prefix}promote(p_tenant, v_slot, v_now, p_hold_micros, p_longest_micros, p_max_upcoming, p_max_week, p_waitlist_cutoff_micros, v_events);
    END main;
    COMMIT;

    SELECT tag, booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at,
           res_kind, res_id, starts_at, ends_at, coach_id, room_id, capacity
      FROM (SELECT 0 AS grp, 0 AS ord, r_tag AS tag, r_booking AS booking_id, r_request AS request_id,
                   r_slot AS slot_id, r_student AS student_id, r_seat AS seat, r_status AS status,
                   r_held AS held_until, r_created AS created_at, r_updated AS updated_at, r_kind AS res_kind,
                   r_res AS res_id, r_start AS starts_at, r_end AS ends_at, r_coach AS coach_id, r_room AS room_id,
                   r_capacity AS capacity
              FROM DUAL WHERE r_tag IS NOT NULL
            UNION ALL
            SELECT 2, e.ord, e.tag, e.booking_id, e.request_id, e.slot_id, e.student_id, e.seat, e.status,
                   e.held_until, e.created_at, e.updated_at, e.res_kind, NULL, NULL, NULL, NULL, NULL, NULL
              FROM JSON_TABLE(v_events, '$[*]' COLUMNS (
                       ord FOR ORDINALITY,
                       tag VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
                       booking_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                       request_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[2]',
                       slot_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[3]',
                       student_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[4]',
                       seat INT PATH '$[5]',
                       status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[6]',
                       held_until DATETIME(6) PATH '$[7]',
                       created_at DATETIME(6) PATH '$[8]',
                       updated_at DATETIME(6) PATH '$[9]',
                       res_kind VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[10]')) e) x
     ORDER BY grp, ord, res_kind, res_id, starts_at;
END//

CREATE OR REPLACE PROCEDURE ${slotbook_prefix}cancel_slot(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_now DATETIME(6))
MODIFIES SQL DATA
BEGIN
    DECLARE v_now DATETIME(6) DEFAULT COALESCE(p_now, UTC_TIMESTAMP(6));
    DECLARE v_n INT DEFAULT 0;
    DECLARE v_ids LONGTEXT;
    DECLARE r_tag VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_booking, r_request, r_slot, r_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_seat INT;
    DECLARE r_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_held, r_created, r_updated DATETIME(6);
    DECLARE r_kind VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_res VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_start, r_end DATETIME(6);
    DECLARE r_coach, r_room VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_capacity INT;
    DECLARE v_events LONGTEXT;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    START TRANSACTION;
    main: BEGIN
        SELECT slot_id, coach_id, room_id, starts_at, ends_at, capacity, status, opens_at, closes_at, buffer_seconds,
               cancel_policy, CAST(cancel_cutoff_seconds AS CHAR), IF(buffer_students, 'STUDENTS', NULL)
          INTO r_slot, r_coach, r_room, r_start, r_end, r_capacity, r_status, r_held, r_created, r_seat, r_kind, r_res,
               r_student
          FROM ${slotbook_prefix}slot WHERE tenant_id = p_tenant AND slot_id = p_slot;
        IF r_slot IS NULL THEN
            SET r_tag = 'NOT_FOUND';
            LEAVE main;
        END IF;
        IF r_status <> 'OPEN' THEN
            SET r_tag = 'ALREADY_CANCELLED', r_slot = NULL, r_coach = NULL, r_room = NULL, r_start = NULL,
                r_end = NULL, r_capacity = NULL, r_status = NULL, r_held = NULL, r_created = NULL, r_seat = NULL,
                r_kind = NULL, r_res = NULL, r_student = NULL;
            LEAVE main;
        END IF;
        UPDATE ${slotbook_prefix}slot SET status = 'CANCELLED' WHERE tenant_id = p_tenant AND slot_id = p_slot AND status = 'OPEN';
        IF ROW_COUNT() = 0 THEN
            SET r_tag = 'ALREADY_CANCELLED', r_slot = NULL, r_coach = NULL, r_room = NULL, r_start = NULL,
                r_end = NULL, r_capacity = NULL, r_status = NULL, r_held = NULL, r_created = NULL, r_seat = NULL,
                r_kind = NULL, r_res = NULL, r_student = NULL;
            LEAVE main;
        END IF;
        -- close every seat, free ones included: a claim in flight holds its seat's lock, so this
        -- waits for it, and no claim can take a seat of this slot afterwards
        UPDATE ${slotbook_prefix}slot_seat SET status = 'CLOSED', booking_id = NULL, student_id = NULL, held_until = NULL
         WHERE tenant_id = p_tenant AND slot_id = p_slot AND status <> 'CLOSED';
        SET STATEMENT group_concat_max_len = 4294967295 FOR
        SELECT COUNT(*), JSON_ARRAYAGG(booking_id) INTO v_n, v_ids
          FROM ${slotbook_prefix}booking
         WHERE tenant_id = p_tenant AND slot_id = p_slot AND status IN ('HELD', 'CONFIRMED') LOCK IN SHARE MODE;
        UPDATE ${slotbook_prefix}booking SET status = 'CANCELLED', updated_at = v_now
         WHERE tenant_id = p_tenant AND slot_id = p_slot AND status IN ('HELD', 'CONFIRMED');
        IF ROW_COUNT() <> v_n THEN
            SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'cancel_slot: ledger rows disagree, the active bookings changed under the cancel';
        END IF;
        UPDATE ${slotbook_prefix}occupancy SET active = FALSE WHERE tenant_id = p_tenant AND slot_id = p_slot AND active = TRUE;
        SET r_tag = 'SLOT_CANCELLED', r_status = 'CANCELLED';
        -- the events, by seat (the bookings are CANCELLED from here on and nothing changes them)
        SET STATEMENT group_concat_max_len = 4294967295 FOR
        SELECT JSON_ARRAYAGG(JSON_ARRAY('EV_CANCELLED', b.booking_id, b.request_id, b.slot_id, b.student_id, b.seat,
                                        b.status, b.held_until, b.created_at, b.updated_at, NULL) ORDER BY b.seat)
          INTO v_events
          FROM JSON_TABLE(v_ids, '$[*]' COLUMNS (bid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$')) j
          STRAIGHT_JOIN ${slotbook_prefix}booking b ON b.tenant_id = p_tenant AND b.booking_id = j.bid;
    END main;
    COMMIT;

    SELECT tag, booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at,
           res_kind, res_id, starts_at, ends_at, coach_id, room_id, capacity
      FROM (SELECT 0 AS grp, 0 AS ord, r_tag AS tag, r_booking AS booking_id, r_request AS request_id,
                   r_slot AS slot_id, r_student AS student_id, r_seat AS seat, r_status AS status,
                   r_held AS held_until, r_created AS created_at, r_updated AS updated_at, r_kind AS res_kind,
                   r_res AS res_id, r_start AS starts_at, r_end AS ends_at, r_coach AS coach_id, r_room AS room_id,
                   r_capacity AS capacity
              FROM DUAL WHERE r_tag IS NOT NULL
            UNION ALL
            SELECT 2, e.ord, e.tag, e.booking_id, e.request_id, e.slot_id, e.student_id, e.seat, e.status,
                   e.held_until, e.created_at, e.updated_at, e.res_kind, NULL, NULL, NULL, NULL, NULL, NULL
              FROM JSON_TABLE(v_events, '$[*]' COLUMNS (
                       ord FOR ORDINALITY,
                       tag VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
                       booking_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                       request_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[2]',
                       slot_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[3]',
                       student_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[4]',
                       seat INT PATH '$[5]',
                       status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[6]',
                       held_until DATETIME(6) PATH '$[7]',
                       created_at DATETIME(6) PATH '$[8]',
                       updated_at DATETIME(6) PATH '$[9]',
                       res_kind VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[10]')) e) x
     ORDER BY grp, ord, res_kind, res_id, starts_at;
END//

CREATE OR REPLACE PROCEDURE ${slotbook_prefix}expire_due(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_now DATETIME(6),
    p_limit INT,
    p_hold_micros BIGINT,
    p_longest_micros BIGINT,
    p_max_upcoming INT,
    p_max_week INT,
    p_waitlist_cutoff_micros BIGINT)
MODIFIES SQL DATA
BEGIN
    DECLARE v_now DATETIME(6) DEFAULT COALESCE(p_now, UTC_TIMESTAMP(6));
    DECLARE v_n INT DEFAULT 0;
    DECLARE v_i INT DEFAULT 0;
    DECLARE v_done INT DEFAULT 0;
    DECLARE v_cand, v_slots LONGTEXT;
    DECLARE v_bid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_tag VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_booking, r_request, r_slot, r_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_seat INT;
    DECLARE r_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_held, r_created, r_updated DATETIME(6);
    DECLARE r_kind VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_res VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_start, r_end DATETIME(6);
    DECLARE r_coach, r_room VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_capacity INT;
    DECLARE v_events LONGTEXT;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    IF p_limit IS NULL OR p_limit < 1 THEN
        SIGNAL SQLSTATE '22003' SET MESSAGE_TEXT = 'expire_due: p_limit must be positive';
    END IF;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    START TRANSACTION;
    main: BEGIN
        -- the due holds, oldest deadline first, without locks
        SET STATEMENT group_concat_max_len = 4294967295 FOR
        SELECT JSON_ARRAYAGG(JSON_ARRAY(d.booking_id, d.slot_id) ORDER BY d.held_until, d.booking_id) INTO v_cand
          FROM (SELECT booking_id, slot_id, held_until FROM ${slotbook_prefix}booking
                 WHERE tenant_id = p_tenant AND status = 'HELD' AND held_until <= v_now
                 ORDER BY held_until, booking_id LIMIT p_limit) d;
        IF v_cand IS NULL THEN
            LEAVE main;
        END IF;
        -- their slots' rows, in key order (every seat-freeing call locks the slot row before the seat)
        SELECT JSON_ARRAYAGG(DISTINCT j.sid ORDER BY j.sid) INTO v_slots
          FROM JSON_TABLE(v_cand, '$[*]' COLUMNS (sid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]')) j;
        WHILE v_i < JSON_LENGTH(v_slots) DO
            SELECT COUNT(*) INTO v_n FROM ${slotbook_prefix}slot
             WHERE tenant_id = p_tenant AND slot_id = JSON_UNQUOTE(JSON_EXTRACT(v_slots, CONCAT('$[', v_i, ']')))
               FOR UPDATE;
            SET v_i = v_i + 1;
        END WHILE;
        SET v_i = 0;
        -- each: the seat row decides whether it is still the due booking's (another sweeper or a claim
        -- taking the seat over may have been first); then its seat goes to the waitlist
        WHILE v_i < JSON_LENGTH(v_cand) DO
            SET v_bid = JSON_UNQUOTE(JSON_EXTRACT(v_cand, CONCAT('$[', v_i, '][0]')));
            CALL ${slotbook_prefix}retire(p_tenant, v_bid, v_now, p_hold_micros, p_longest_micros, p_max_upcoming, p_max_week, p_waitlist_cutoff_micros, v_events, v_done);
            SET v_i = v_i + 1;
        END WHILE;
    END main;
    COMMIT;

    SELECT tag, booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at,
           res_kind, res_id, starts_at, ends_at, coach_id, room_id, capacity
      FROM (SELECT 0 AS grp, 0 AS ord, r_tag AS tag, r_booking AS booking_id, r_request AS request_id,
                   r_slot AS slot_id, r_student AS student_id, r_seat AS seat, r_status AS status,
                   r_held AS held_until, r_created AS created_at, r_updated AS updated_at, r_kind AS res_kind,
                   r_res AS res_id, r_start AS starts_at, r_end AS ends_at, r_coach AS coach_id, r_room AS room_id,
                   r_capacity AS capacity
              FROM DUAL WHERE r_tag IS NOT NULL
            UNION ALL
            SELECT 2, e.ord, e.tag, e.booking_id, e.request_id, e.slot_id, e.student_id, e.seat, e.status,
                   e.held_until, e.created_at, e.updated_at, e.res_kind, NULL, NULL, NULL, NULL, NULL, NULL
              FROM JSON_TABLE(v_events, '$[*]' COLUMNS (
                       ord FOR ORDINALITY,
                       tag VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
                       booking_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                       request_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[2]',
                       slot_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[3]',
                       student_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[4]',
                       seat INT PATH '$[5]',
                       status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[6]',
                       held_until DATETIME(6) PATH '$[7]',
                       created_at DATETIME(6) PATH '$[8]',
                       updated_at DATETIME(6) PATH '$[9]',
                       res_kind VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[10]')) e) x
     ORDER BY grp, ord, res_kind, res_id, starts_at;
END//

CREATE OR REPLACE PROCEDURE ${slotbook_prefix}leave_waitlist(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_request VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_now DATETIME(6))
MODIFIES SQL DATA
BEGIN
    DECLARE v_now DATETIME(6) DEFAULT COALESCE(p_now, UTC_TIMESTAMP(6));
    DECLARE v_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_tag VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_booking, r_request, r_slot, r_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_seat INT;
    DECLARE r_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_held, r_created, r_updated DATETIME(6);
    DECLARE r_kind VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_res VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_start, r_end DATETIME(6);
    DECLARE r_coach, r_room VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_capacity INT;
    DECLARE v_events LONGTEXT;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    START TRANSACTION;
    main: BEGIN
        SELECT student_id, status INTO v_student, v_status
          FROM ${slotbook_prefix}waiter WHERE tenant_id = p_tenant AND request_id = p_request FOR UPDATE;
        IF v_student IS NULL OR v_student <> p_student THEN
            SET r_tag = 'NOT_FOUND';
            LEAVE main;
        END IF;
        IF v_status = 'WAITING' THEN
            UPDATE ${slotbook_prefix}waiter SET status = 'LEFT', updated_at = v_now
             WHERE tenant_id = p_tenant AND request_id = p_request;
            SET r_tag = 'LEFT';
        ELSE
            SET r_tag = 'NOT_WAITING';
        END IF;
        CALL ${slotbook_prefix}waiter_row(p_tenant, p_request, r_booking, r_request, r_slot, r_student, r_seat,
                                          r_status, r_created, r_updated, r_kind);
    END main;
    COMMIT;

    SELECT tag, booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at,
           res_kind, res_id, starts_at, ends_at, coach_id, room_id, capacity
      FROM (SELECT 0 AS grp, 0 AS ord, r_tag AS tag, r_booking AS booking_id, r_request AS request_id,
                   r_slot AS slot_id, r_student AS student_id, r_seat AS seat, r_status AS status,
                   r_held AS held_until, r_created AS created_at, r_updated AS updated_at, r_kind AS res_kind,
                   r_res AS res_id, r_start AS starts_at, r_end AS ends_at, r_coach AS coach_id, r_room AS room_id,
                   r_capacity AS capacity
              FROM DUAL WHERE r_tag IS NOT NULL
            UNION ALL
            SELECT 2, e.ord, e.tag, e.booking_id, e.request_id, e.slot_id, e.student_id, e.seat, e.status,
                   e.held_until, e.created_at, e.updated_at, e.res_kind, NULL, NULL, NULL, NULL, NULL, NULL
              FROM JSON_TABLE(v_events, '$[*]' COLUMNS (
                       ord FOR ORDINALITY,
                       tag VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
                       booking_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                       request_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[2]',
                       slot_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[3]',
                       student_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[4]',
                       seat INT PATH '$[5]',
                       status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[6]',
                       held_until DATETIME(6) PATH '$[7]',
                       created_at DATETIME(6) PATH '$[8]',
                       updated_at DATETIME(6) PATH '$[9]',
                       res_kind VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[10]')) e) x
     ORDER BY grp, ord, res_kind, res_id, starts_at;
END//

DELIMITER ;
