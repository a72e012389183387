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
    PRIMARY KEY (tenant_id, slot_id),
    CONSTRAINT ${slotbook_prefix}slot_time_ck CHECK (starts_at < ends_at),
    CONSTRAINT ${slotbook_prefix}slot_capacity_ck CHECK (capacity > 0),
    CONSTRAINT ${slotbook_prefix}slot_status_ck CHECK (status IN ('OPEN', 'CANCELLED'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

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
    PRIMARY KEY (tenant_id, booking_id),
    UNIQUE KEY ${slotbook_prefix}booking_request_uk (tenant_id, request_id),
    KEY ${slotbook_prefix}booking_slot_ix (tenant_id, slot_id, student_id),
    KEY ${slotbook_prefix}booking_held_ix (tenant_id, status, held_until),
    CONSTRAINT ${slotbook_prefix}booking_status_ck CHECK (status IN ('HELD', 'CONFIRMED', 'CANCELLED', 'EXPIRED'))
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

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
-- One call per engine decision. Each procedure runs its own READ COMMITTED transaction (call it
-- with autocommit on), and answers with ONE result set of fact rows, always these 17 columns:
--   tag, booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at,
--   updated_at, res_kind, res_id, starts_at, ends_at, coach_id, room_id, capacity
-- (read by org.slotbook.jdbc.internal.Facts). The answer is captured in variables (and in JSON lists
-- of ids) inside the transaction and selected once after COMMIT, so a failed commit never
-- leaves a result set behind. Rows re-read after the commit (EV_EXPIRED, EV_CANCELLED) are
-- EXPIRED or CANCELLED bookings, which nothing changes any more.
-- Lock order everywhere: resource_lock rows (kind, then id), slot row, seat rows, booking rows.
-- p_now NULL means the database clock, UTC_TIMESTAMP(6), read once per call.
-- ---------------------------------------------------------------------------------------------

DELIMITER //

CREATE OR REPLACE PROCEDURE ${slotbook_prefix}schedule(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_coach VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_room VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_start DATETIME(6),
    p_end DATETIME(6),
    p_capacity INT,
    p_longest_micros BIGINT)
MODIFIES SQL DATA
BEGIN
    DECLARE v_n INT DEFAULT 0;
    DECLARE v_dup INT DEFAULT 0;
    DECLARE v_conf LONGTEXT;
    DECLARE r_tag VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_booking, r_request, r_slot, r_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_seat INT;
    DECLARE r_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_held, r_created, r_updated DATETIME(6);
    DECLARE r_kind VARCHAR(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_res VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_start, r_end DATETIME(6);
    DECLARE r_coach, r_room VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_capacity INT;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    IF p_capacity IS NULL OR p_capacity < 1 OR p_capacity > 100000 THEN
        SIGNAL SQLSTATE '22003' SET MESSAGE_TEXT = 'schedule: capacity must be between 1 and 100000';
    END IF;
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
        SELECT slot_id, coach_id, room_id, starts_at, ends_at, capacity, status
          INTO r_slot, r_coach, r_room, r_start, r_end, r_capacity, r_status
          FROM ${slotbook_prefix}slot WHERE tenant_id = p_tenant AND slot_id = p_slot;
        IF r_slot IS NOT NULL THEN
            SET r_tag = 'EXISTS';
            LEAVE main;
        END IF;

        -- 3. overlapping sessions of the coach or the room
        SELECT COUNT(*), JSON_ARRAYAGG(JSON_ARRAY(resource_kind, resource_id, slot_id, booking_id, starts_at, ends_at))
          INTO v_n, v_conf
          FROM ${slotbook_prefix}occupancy
         WHERE tenant_id = p_tenant
           AND ((resource_kind = 'COACH' AND resource_id = p_coach) OR (resource_kind = 'ROOM' AND resource_id = p_room))
           AND active = TRUE AND starts_at < p_end AND ends_at > p_start
           AND starts_at > p_start - INTERVAL p_longest_micros MICROSECOND;
        IF v_n > 0 THEN
            LEAVE main;
        END IF;

        -- 4. the slot (a concurrent insert of the same id answers EXISTS), its seats, its occupations
        BEGIN
            DECLARE CONTINUE HANDLER FOR 1062 SET v_dup = 1;
            INSERT INTO ${slotbook_prefix}slot (tenant_id, slot_id, coach_id, room_id, starts_at, ends_at, capacity, status)
                VALUES (p_tenant, p_slot, p_coach, p_room, p_start, p_end, p_capacity, 'OPEN');
        END;
        IF v_dup = 1 THEN
            SELECT slot_id, coach_id, room_id, starts_at, ends_at, capacity, status
              INTO r_slot, r_coach, r_room, r_start, r_end, r_capacity, r_status
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
            VALUES (p_tenant, 'COACH', p_coach, p_start, p_end, p_slot, NULL, TRUE),
                   (p_tenant, 'ROOM', p_room, p_start, p_end, p_slot, NULL, TRUE);
        SET r_tag = 'SCHEDULED', r_slot = p_slot, r_coach = p_coach, r_room = p_room, r_start = p_start,
            r_end = p_end, r_capacity = p_capacity, r_status = 'OPEN';
    END main;
    COMMIT;

    SELECT tag, booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at,
           res_kind, res_id, starts_at, ends_at, coach_id, room_id, capacity
      FROM (SELECT 0 AS grp, r_tag AS tag, r_booking AS booking_id, r_request AS request_id, r_slot AS slot_id,
                   r_student AS student_id, r_seat AS seat, r_status AS status, r_held AS held_until,
                   r_created AS created_at, r_updated AS updated_at, r_kind AS res_kind, r_res AS res_id,
                   r_start AS starts_at, r_end AS ends_at, r_coach AS coach_id, r_room AS room_id, r_capacity AS capacity
              FROM DUAL WHERE r_tag IS NOT NULL
            UNION ALL
            SELECT 1, 'CONFLICT', c.booking_id, NULL, c.slot_id, NULL, NULL, NULL, NULL, NULL, NULL,
                   c.res_kind, c.res_id, c.starts_at, c.ends_at, NULL, NULL, NULL
              FROM JSON_TABLE(v_conf, '$[*]' COLUMNS (
                       res_kind VARCHAR(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
                       res_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                       slot_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[2]',
                       booking_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[3]',
                       starts_at DATETIME(6) PATH '$[4]',
                       ends_at DATETIME(6) PATH '$[5]')) c) x
     ORDER BY grp, res_kind, res_id, starts_at;
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
    p_gate_held BOOLEAN)
MODIFIES SQL DATA
BEGIN
    DECLARE v_now DATETIME(6) DEFAULT COALESCE(p_now, UTC_TIMESTAMP(6));
    DECLARE v_held_until DATETIME(6);
    DECLARE v_slot_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_start, v_end, v_lowest DATETIME(6);
    DECLARE v_n INT DEFAULT 0;
    DECLARE v_conf, v_cand, v_ids LONGTEXT;
    DECLARE v_own_dead, v_old, v_displaced VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_seq INT;
    DECLARE v_round INT DEFAULT 0;
    DECLARE v_skip INT DEFAULT 1;
    DECLARE v_taken INT DEFAULT 0;
    DECLARE v_none INT DEFAULT 0;
    DECLARE v_event VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_tag VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_booking, r_request, r_slot, r_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_seat INT;
    DECLARE r_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_held, r_created, r_updated DATETIME(6);
    DECLARE r_kind VARCHAR(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_res VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_start, r_end DATETIME(6);
    DECLARE r_coach, r_room VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_capacity INT;
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
        SELECT status, starts_at, ends_at INTO v_slot_status, v_start, v_end
          FROM ${slotbook_prefix}slot WHERE tenant_id = p_tenant AND slot_id = p_slot;
        IF v_slot_status IS NULL THEN
            SET r_tag = 'NOT_FOUND';
            LEAVE main;
        END IF;

        -- 2. cancelled or over: only a replay
        IF v_slot_status <> 'OPEN' OR v_now >= v_end THEN
            SELECT booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at
              INTO r_booking, r_request, r_slot, r_student, r_seat, r_status, r_held, r_created, r_updated
              FROM ${slotbook_prefix}booking WHERE tenant_id = p_tenant AND request_id = p_request;
            IF r_booking IS NOT NULL THEN
                SET r_tag = 'REPLAY';
            ELSE
                SET r_tag = 'NOT_OPEN', r_slot = p_slot, r_status = v_slot_status;
            END IF;
            LEAVE main;
        END IF;

        -- 3. full by committed seats: answer without locking anything (the primary key would walk
        --    every sold seat of a hot slot: name the index that finds a free or ran-out seat at once)
        IF NOT COALESCE(p_gate_held, FALSE)
           AND NOT EXISTS (SELECT 1 FROM ${slotbook_prefix}slot_seat FORCE INDEX (${slotbook_prefix}slot_seat_claim_ix)
                            WHERE tenant_id = p_tenant AND slot_id = p_slot AND status = 'FREE')
           AND NOT EXISTS (SELECT 1 FROM ${slotbook_prefix}slot_seat FORCE INDEX (${slotbook_prefix}slot_seat_held_ix)
                            WHERE tenant_id = p_tenant AND slot_id = p_slot AND status = 'HELD'
                              AND held_until <= v_now) THEN
            SELECT booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at
              INTO r_booking, r_request, r_slot, r_student, r_seat, r_status, r_held, r_created, r_updated
              FROM ${slotbook_prefix}booking WHERE tenant_id = p_tenant AND request_id = p_request;
            IF r_booking IS NOT NULL THEN
                SET r_tag = 'REPLAY';
                LEAVE main;
            END IF;
            SELECT booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at
              INTO r_booking, r_request, r_slot, r_student, r_seat, r_status, r_held, r_created, r_updated
              FROM ${slotbook_prefix}booking WHERE tenant_id = p_tenant AND slot_id = p_slot AND student_id = p_student AND status IN ('HELD', 'CONFIRMED') LIMIT 1;
            IF r_booking IS NOT NULL AND (r_status = 'CONFIRMED' OR v_now < r_held) THEN
                SET r_tag = 'ALREADY';
                LEAVE main;
            END IF;
            SET r_booking = NULL, r_request = NULL, r_slot = NULL, r_student = NULL, r_seat = NULL, r_status = NULL, r_held = NULL, r_created = NULL, r_updated = NULL;
            SET r_tag = 'FULL';
            LEAVE main;
        END IF;

        -- 4. the student's lock
        SELECT COUNT(*) INTO v_n FROM ${slotbook_prefix}resource_lock
         WHERE tenant_id = p_tenant AND resource_kind = 'STUDENT' AND resource_id = p_student FOR UPDATE;
        IF v_n = 0 THEN
            INSERT INTO ${slotbook_prefix}resource_lock (tenant_id, resource_kind, resource_id) VALUES (p_tenant, 'STUDENT', p_student)
                ON DUPLICATE KEY UPDATE resource_id = resource_id;
        END IF;

        -- 5. a replay of this request (any slot, any status; the caller checks slot and student)
        SELECT booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at
              INTO r_booking, r_request, r_slot, r_student, r_seat, r_status, r_held, r_created, r_updated
              FROM ${slotbook_prefix}booking WHERE tenant_id = p_tenant AND request_id = p_request;
        IF r_booking IS NOT NULL THEN
            SET r_tag = 'REPLAY';
            LEAVE main;
        END IF;

        -- 6. the student's own booking of this slot: live answers ALREADY, a dead hold is retired below
        SELECT booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at
              INTO r_booking, r_request, r_slot, r_student, r_seat, r_status, r_held, r_created, r_updated
              FROM ${slotbook_prefix}booking WHERE tenant_id = p_tenant AND slot_id = p_slot AND student_id = p_student AND status IN ('HELD', 'CONFIRMED') LIMIT 1;
        IF r_booking IS NOT NULL THEN
            IF r_status = 'CONFIRMED' OR v_now < r_held THEN
                SET r_tag = 'ALREADY';
                LEAVE main;
            END IF;
            SET v_own_dead = r_booking;
            SET r_booking = NULL, r_request = NULL, r_slot = NULL, r_student = NULL, r_seat = NULL, r_status = NULL, r_held = NULL, r_created = NULL, r_updated = NULL;
        END IF;

        -- 7. the student's overlapping occupations; a hold that ran out blocks nothing
        SET v_lowest = v_start - INTERVAL p_longest_micros MICROSECOND;
        SELECT COUNT(*), JSON_ARRAYAGG(JSON_ARRAY(o.resource_kind, o.resource_id, o.slot_id, o.booking_id, o.starts_at, o.ends_at))
          INTO v_n, v_conf
          FROM ${slotbook_prefix}occupancy o
         WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = p_student AND o.active = TRUE
           AND o.starts_at < v_end AND o.ends_at > v_start AND o.starts_at > v_lowest
           AND NOT EXISTS (SELECT 1 FROM ${slotbook_prefix}booking b
                            WHERE b.tenant_id = p_tenant AND b.booking_id = o.booking_id
                              AND b.status = 'HELD' AND b.held_until <= v_now);
        IF v_n > 0 THEN
            LEAVE main;
        END IF;

        -- 8. retire the student's dead holds in the way (and his dead hold of this slot): the
        --    locked seat rows decide which are still his; those become FREE, their bookings EXPIRED
        SELECT JSON_ARRAYAGG(JSON_ARRAY(c.booking_id, c.slot_id, c.seat)) INTO v_cand
          FROM (SELECT b.booking_id, b.slot_id, b.seat
                  FROM ${slotbook_prefix}occupancy o
                  JOIN ${slotbook_prefix}booking b ON b.tenant_id = o.tenant_id AND b.booking_id = o.booking_id
                 WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = p_student
                   AND o.active = TRUE AND o.starts_at < v_end AND o.ends_at > v_start AND o.starts_at > v_lowest
                   AND b.status = 'HELD' AND b.held_until <= v_now
                UNION
                SELECT b.booking_id, b.slot_id, b.seat
                  FROM ${slotbook_prefix}booking b
                 WHERE b.tenant_id = p_tenant AND b.booking_id = v_own_dead
                   AND b.status = 'HELD' AND b.held_until <= v_now) c;
        IF v_cand IS NOT NULL THEN
            SELECT COUNT(*), JSON_ARRAYAGG(JSON_ARRAY(s.booking_id, s.slot_id, s.seq)) INTO v_n, v_ids
              FROM JSON_TABLE(v_cand, '$[*]' COLUMNS (
                       bid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
                       sid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                       sq INT PATH '$[2]')) j
              STRAIGHT_JOIN ${slotbook_prefix}slot_seat s ON s.tenant_id = p_tenant AND s.slot_id = j.sid AND s.seq = j.sq
             WHERE s.booking_id = j.bid AND s.status = 'HELD' AND s.held_until <= v_now
               FOR UPDATE;
            IF v_n > 0 THEN
                UPDATE JSON_TABLE(v_ids, '$[*]' COLUMNS (
                       bid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
                       sid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                       sq INT PATH '$[2]')) j
                  STRAIGHT_JOIN ${slotbook_prefix}slot_seat s ON s.tenant_id = p_tenant AND s.slot_id = j.sid AND s.seq = j.sq
                   SET s.status = 'FREE', s.booking_id = NULL, s.student_id = NULL, s.held_until = NULL;
                UPDATE JSON_TABLE(v_ids, '$[*]' COLUMNS (
                       bid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
                       sid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                       sq INT PATH '$[2]')) j
                  STRAIGHT_JOIN ${slotbook_prefix}booking b ON b.tenant_id = p_tenant AND b.booking_id = j.bid
                   SET b.status = 'EXPIRED', b.updated_at = v_now
                 WHERE b.status = 'HELD';
                IF ROW_COUNT() <> v_n THEN
                    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'hold: ledger rows disagree, a retired seat''s booking was not HELD';
                END IF;
                UPDATE JSON_TABLE(v_ids, '$[*]' COLUMNS (
                       bid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
                       sid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                       sq INT PATH '$[2]')) j
                  STRAIGHT_JOIN ${slotbook_prefix}occupancy o ON o.tenant_id = p_tenant AND o.booking_id = j.bid
                   SET o.active = FALSE
                 WHERE o.active = TRUE;
            ELSE
                SET v_ids = NULL;
            END IF;
        END IF;

        -- 9. the claim, as JdbcSeatLedger.claimSeat: the first free seat, else the oldest ran-out
        --    hold, skipping seats other claims have locked; then once more waiting for them
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
                IF v_skip = 0 THEN
                    SET v_none = 1;
                    LEAVE claim;
                END IF;
                SET v_skip = 0;
            END LOOP attempt;
        END WHILE claim;
        IF v_none = 1 THEN
            SET r_tag = 'FULL';
            LEAVE main;
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
        END IF;

        -- 10. the booking and the student's occupation
        INSERT INTO ${slotbook_prefix}booking (tenant_id, booking_id, request_id, slot_id, student_id, seat, status, held_until,
                                      created_at, updated_at)
            VALUES (p_tenant, p_booking, p_request, p_slot, p_student, v_seq, p_status, v_held_until, v_now, v_now);
        INSERT INTO ${slotbook_prefix}occupancy (tenant_id, resource_kind, resource_id, starts_at, ends_at, slot_id, booking_id, active)
            VALUES (p_tenant, 'STUDENT', p_student, v_start, v_end, p_slot, p_booking, TRUE);
        SET r_tag = 'HELD', r_booking = p_booking, r_request = p_request, r_slot = p_slot, r_student = p_student,
            r_seat = v_seq, r_status = p_status, r_held = v_held_until, r_created = v_now, r_updated = v_now,
            v_event = IF(p_status = 'CONFIRMED', 'EV_CONFIRMED', 'EV_HELD');
    END main;
    COMMIT;

    SELECT tag, booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at,
           res_kind, res_id, starts_at, ends_at, coach_id, room_id, capacity
      FROM (SELECT 0 AS grp, r_tag AS tag, r_booking AS booking_id, r_request AS request_id, r_slot AS slot_id,
                   r_student AS student_id, r_seat AS seat, r_status AS status, r_held AS held_until,
                   r_created AS created_at, r_updated AS updated_at, r_kind AS res_kind, r_res AS res_id,
                   r_start AS starts_at, r_end AS ends_at, r_coach AS coach_id, r_room AS room_id, r_capacity AS capacity
              FROM DUAL WHERE r_tag IS NOT NULL
            UNION ALL
            SELECT 1, 'CONFLICT', c.booking_id, NULL, c.slot_id, NULL, NULL, NULL, NULL, NULL, NULL,
                   c.res_kind, c.res_id, c.starts_at, c.ends_at, NULL, NULL, NULL
              FROM JSON_TABLE(v_conf, '$[*]' COLUMNS (
                       res_kind VARCHAR(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
                       res_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                       slot_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[2]',
                       booking_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[3]',
                       starts_at DATETIME(6) PATH '$[4]',
                       ends_at DATETIME(6) PATH '$[5]')) c
            UNION ALL
            SELECT 2, 'EV_EXPIRED', b.booking_id, b.request_id, b.slot_id, b.student_id, b.seat, b.status, b.held_until,
                   b.created_at, b.updated_at, NULL, NULL, NULL, NULL, NULL, NULL, NULL
              FROM JSON_TABLE(v_ids, '$[*]' COLUMNS (
                       bid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
                       sid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                       sq INT PATH '$[2]')) j
              STRAIGHT_JOIN ${slotbook_prefix}booking b ON b.tenant_id = p_tenant AND b.booking_id = j.bid
            UNION ALL
            SELECT 2, 'EV_EXPIRED', b.booking_id, b.request_id, b.slot_id, b.student_id, b.seat, b.status, b.held_until,
                   b.created_at, b.updated_at, NULL, NULL, NULL, NULL, NULL, NULL, NULL
              FROM ${slotbook_prefix}booking b WHERE b.tenant_id = p_tenant AND b.booking_id = v_displaced
            UNION ALL
            SELECT 3, v_event, r_booking, r_request, r_slot, r_student, r_seat, r_status, r_held, r_created, r_updated,
                   NULL, NULL, NULL, NULL, NULL, NULL, NULL
              FROM DUAL WHERE v_event IS NOT NULL) x
     ORDER BY grp, res_kind, res_id, starts_at, held_until, booking_id;
END//


CREATE OR REPLACE PROCEDURE ${slotbook_prefix}confirm(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_now DATETIME(6))
MODIFIES SQL DATA
BEGIN
    DECLARE v_now DATETIME(6) DEFAULT COALESCE(p_now, UTC_TIMESTAMP(6));
    DECLARE v_slot, v_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_seat INT;
    DECLARE v_n INT DEFAULT 0;
    DECLARE v_event VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_tag VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_booking, r_request, r_slot, r_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_seat INT;
    DECLARE r_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_held, r_created, r_updated DATETIME(6);
    DECLARE r_kind VARCHAR(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_res VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_start, r_end DATETIME(6);
    DECLARE r_coach, r_room VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_capacity INT;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    START TRANSACTION;
    main: BEGIN
        -- find the booking, lock its seat row, read it again (every change of a booking goes
        -- through its seat row first, so nothing changes it from here on)
        SELECT slot_id, seat, student_id INTO v_slot, v_seat, v_student
          FROM ${slotbook_prefix}booking WHERE tenant_id = p_tenant AND booking_id = p_booking;
        IF v_slot IS NULL OR v_student <> p_student THEN
            SET r_tag = 'NOT_FOUND';
            LEAVE main;
        END IF;
        SELECT COUNT(*) INTO v_n FROM ${slotbook_prefix}slot_seat
         WHERE tenant_id = p_tenant AND slot_id = v_slot AND seq = v_seat FOR UPDATE;
        SELECT booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at
          INTO r_booking, r_request, r_slot, r_student, r_seat, r_status, r_held, r_created, r_updated
          FROM ${slotbook_prefix}booking WHERE tenant_id = p_tenant AND booking_id = p_booking;
        IF r_status = 'CONFIRMED' THEN
            SET r_tag = 'CONFIRMED';
        ELSEIF r_status = 'CANCELLED' THEN
            SET r_booking = NULL, r_request = NULL, r_slot = NULL, r_student = NULL, r_seat = NULL, r_status = NULL, r_held = NULL, r_created = NULL, r_updated = NULL;
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
            SET r_tag = 'CONFIRMED', v_event = 'EV_CONFIRMED', r_status = 'CONFIRMED', r_updated = v_now;
        ELSE
            UPDATE ${slotbook_prefix}slot_seat SET status = 'FREE', booking_id = NULL, student_id = NULL, held_until = NULL
                 WHERE tenant_id = p_tenant AND slot_id = v_slot AND seq = v_seat AND booking_id = p_booking
                   AND status = 'HELD' AND held_until <= v_now;
            IF ROW_COUNT() <> 1 THEN
                SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'confirm: ledger rows disagree, the HELD booking does not own its seat';
            END IF;
            UPDATE ${slotbook_prefix}booking SET status = 'EXPIRED', updated_at = v_now
                     WHERE tenant_id = p_tenant AND booking_id = p_booking AND status = 'HELD';
                    IF ROW_COUNT() <> 1 THEN
                        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'confirm: ledger rows disagree, the seat changed but the booking row did not';
                    END IF;
            UPDATE ${slotbook_prefix}occupancy SET active = FALSE
                     WHERE tenant_id = p_tenant AND booking_id = p_booking AND active = TRUE;
            SET r_tag = 'HOLD_EXPIRED', v_event = 'EV_EXPIRED', r_status = 'EXPIRED', r_updated = v_now;
        END IF;
    END main;
    COMMIT;

    SELECT tag, booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at,
           res_kind, res_id, starts_at, ends_at, coach_id, room_id, capacity
      FROM (SELECT 0 AS grp, r_tag AS tag, r_booking AS booking_id, r_request AS request_id, r_slot AS slot_id,
                   r_student AS student_id, r_seat AS seat, r_status AS status, r_held AS held_until,
                   r_created AS created_at, r_updated AS updated_at, r_kind AS res_kind, r_res AS res_id,
                   r_start AS starts_at, r_end AS ends_at, r_coach AS coach_id, r_room AS room_id, r_capacity AS capacity
              FROM DUAL WHERE r_tag IS NOT NULL
            UNION ALL
            SELECT 1, v_event, r_booking, r_request, r_slot, r_student, r_seat, r_status, r_held, r_created, r_updated,
                   NULL, NULL, NULL, NULL, NULL, NULL, NULL
              FROM DUAL WHERE v_event IS NOT NULL) x
     ORDER BY grp;
END//

CREATE OR REPLACE PROCEDURE ${slotbook_prefix}cancel(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_now DATETIME(6))
MODIFIES SQL DATA
BEGIN
    DECLARE v_now DATETIME(6) DEFAULT COALESCE(p_now, UTC_TIMESTAMP(6));
    DECLARE v_slot, v_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_seat INT;
    DECLARE v_n INT DEFAULT 0;
    DECLARE v_event VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_tag VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_booking, r_request, r_slot, r_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_seat INT;
    DECLARE r_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_held, r_created, r_updated DATETIME(6);
    DECLARE r_kind VARCHAR(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_res VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_start, r_end DATETIME(6);
    DECLARE r_coach, r_room VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_capacity INT;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    START TRANSACTION;
    main: BEGIN
        -- find the booking, lock its seat row, read it again (every change of a booking goes
        -- through its seat row first, so nothing changes it from here on)
        SELECT slot_id, seat, student_id INTO v_slot, v_seat, v_student
          FROM ${slotbook_prefix}booking WHERE tenant_id = p_tenant AND booking_id = p_booking;
        IF v_slot IS NULL OR v_student <> p_student THEN
            SET r_tag = 'NOT_FOUND';
            LEAVE main;
        END IF;
        SELECT COUNT(*) INTO v_n FROM ${slotbook_prefix}slot_seat
         WHERE tenant_id = p_tenant AND slot_id = v_slot AND seq = v_seat FOR UPDATE;
        SELECT booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at
          INTO r_booking, r_request, r_slot, r_student, r_seat, r_status, r_held, r_created, r_updated
          FROM ${slotbook_prefix}booking WHERE tenant_id = p_tenant AND booking_id = p_booking;
        IF r_status IN ('CANCELLED', 'EXPIRED') THEN
            SET r_tag = 'ALREADY_CANCELLED';
        ELSEIF r_status = 'HELD' AND v_now >= r_held THEN
            -- the hold already ran out: nothing to cancel, but retire it now
            SET r_tag = 'ALREADY_CANCELLED';
            UPDATE ${slotbook_prefix}slot_seat SET status = 'FREE', booking_id = NULL, student_id = NULL, held_until = NULL
                 WHERE tenant_id = p_tenant AND slot_id = v_slot AND seq = v_seat AND booking_id = p_booking
                   AND status = 'HELD' AND held_until <= v_now;
            IF ROW_COUNT() = 1 THEN
                UPDATE ${slotbook_prefix}booking SET status = 'EXPIRED', updated_at = v_now
                     WHERE tenant_id = p_tenant AND booking_id = p_booking AND status = 'HELD';
                    IF ROW_COUNT() <> 1 THEN
                        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'cancel: ledger rows disagree, the seat changed but the booking row did not';
                    END IF;
                UPDATE ${slotbook_prefix}occupancy SET active = FALSE
                     WHERE tenant_id = p_tenant AND booking_id = p_booking AND active = TRUE;
                SET v_event = 'EV_EXPIRED', r_status = 'EXPIRED', r_updated = v_now;
            END IF;
        ELSE
            UPDATE ${slotbook_prefix}slot_seat SET status = 'FREE', booking_id = NULL, student_id = NULL, held_until = NULL
             WHERE tenant_id = p_tenant AND slot_id = v_slot AND seq = v_seat AND booking_id = p_booking
               AND status IN ('HELD', 'CONFIRMED');
            IF ROW_COUNT() = 1 THEN
                UPDATE ${slotbook_prefix}booking SET status = 'CANCELLED', updated_at = v_now
                     WHERE tenant_id = p_tenant AND booking_id = p_booking AND status IN ('HELD', 'CONFIRMED');
                    IF ROW_COUNT() <> 1 THEN
                        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'cancel: ledger rows disagree, the seat changed but the booking row did not';
                    END IF;
                UPDATE ${slotbook_prefix}occupancy SET active = FALSE
                     WHERE tenant_id = p_tenant AND booking_id = p_booking AND active = TRUE;
                SET r_tag = 'CANCELLED', v_event = 'EV_CANCELLED', r_status = 'CANCELLED', r_updated = v_now;
            ELSE
                SET r_tag = 'ALREADY_CANCELLED';
            END IF;
        END IF;
    END main;
    COMMIT;

    SELECT tag, booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at,
           res_kind, res_id, starts_at, ends_at, coach_id, room_id, capacity
      FROM (SELECT 0 AS grp, r_tag AS tag, r_booking AS booking_id, r_request AS request_id, r_slot AS slot_id,
                   r_student AS student_id, r_seat AS seat, r_status AS status, r_held AS held_until,
                   r_created AS created_at, r_updated AS updated_at, r_kind AS res_kind, r_res AS res_id,
                   r_start AS starts_at, r_end AS ends_at, r_coach AS coach_id, r_room AS room_id, r_capacity AS capacity
              FROM DUAL WHERE r_tag IS NOT NULL
            UNION ALL
            SELECT 1, v_event, r_booking, r_request, r_slot, r_student, r_seat, r_status, r_held, r_created, r_updated,
                   NULL, NULL, NULL, NULL, NULL, NULL, NULL
              FROM DUAL WHERE v_event IS NOT NULL) x
     ORDER BY grp;
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
    DECLARE r_kind VARCHAR(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_res VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_start, r_end DATETIME(6);
    DECLARE r_coach, r_room VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_capacity INT;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    START TRANSACTION;
    main: BEGIN
        SELECT slot_id, coach_id, room_id, starts_at, ends_at, capacity, status
          INTO r_slot, r_coach, r_room, r_start, r_end, r_capacity, r_status
          FROM ${slotbook_prefix}slot WHERE tenant_id = p_tenant AND slot_id = p_slot;
        IF r_slot IS NULL THEN
            SET r_tag = 'NOT_FOUND';
            LEAVE main;
        END IF;
        IF r_status <> 'OPEN' THEN
            SET r_tag = 'ALREADY_CANCELLED', r_slot = NULL, r_coach = NULL, r_room = NULL, r_start = NULL,
                r_end = NULL, r_capacity = NULL, r_status = NULL;
            LEAVE main;
        END IF;
        UPDATE ${slotbook_prefix}slot SET status = 'CANCELLED' WHERE tenant_id = p_tenant AND slot_id = p_slot AND status = 'OPEN';
        IF ROW_COUNT() = 0 THEN
            SET r_tag = 'ALREADY_CANCELLED', r_slot = NULL, r_coach = NULL, r_room = NULL, r_start = NULL,
                r_end = NULL, r_capacity = NULL, r_status = NULL;
            LEAVE main;
        END IF;
        -- close every seat, free ones included: a claim in flight holds its seat's lock, so this
        -- waits for it, and no claim can take a seat of this slot afterwards
        UPDATE ${slotbook_prefix}slot_seat SET status = 'CLOSED', booking_id = NULL, student_id = NULL, held_until = NULL
         WHERE tenant_id = p_tenant AND slot_id = p_slot AND status <> 'CLOSED';
        SET STATEMENT group_concat_max_len = 4294967295 FOR
        SELECT COUNT(*), JSON_ARRAYAGG(booking_id) INTO v_n, v_ids
          FROM ${slotbook_prefix}booking
         WHERE tenant_id = p_tenant AND slot_id = p_slot AND status IN ('HELD', 'CONFIRMED');
        UPDATE ${slotbook_prefix}booking SET status = 'CANCELLED', updated_at = v_now
         WHERE tenant_id = p_tenant AND slot_id = p_slot AND status IN ('HELD', 'CONFIRMED');
        IF ROW_COUNT() <> v_n THEN
            SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'cancel_slot: ledger rows disagree, the active bookings changed under the cancel';
        END IF;
        UPDATE ${slotbook_prefix}occupancy SET active = FALSE WHERE tenant_id = p_tenant AND slot_id = p_slot AND active = TRUE;
        SET r_tag = 'SLOT_CANCELLED', r_status = 'CANCELLED';
    END main;
    COMMIT;

    SELECT tag, booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at,
           res_kind, res_id, starts_at, ends_at, coach_id, room_id, capacity
      FROM (SELECT 0 AS grp, r_tag AS tag, r_booking AS booking_id, r_request AS request_id, r_slot AS slot_id,
                   r_student AS student_id, r_seat AS seat, r_status AS status, r_held AS held_until,
                   r_created AS created_at, r_updated AS updated_at, r_kind AS res_kind, r_res AS res_id,
                   r_start AS starts_at, r_end AS ends_at, r_coach AS coach_id, r_room AS room_id, r_capacity AS capacity
              FROM DUAL WHERE r_tag IS NOT NULL
            UNION ALL
            SELECT 1, 'EV_CANCELLED', b.booking_id, b.request_id, b.slot_id, b.student_id, b.seat, b.status, b.held_until,
                   b.created_at, b.updated_at, NULL, NULL, NULL, NULL, NULL, NULL, NULL
              FROM JSON_TABLE(v_ids, '$[*]' COLUMNS (
                       bid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$')) j
              STRAIGHT_JOIN ${slotbook_prefix}booking b ON b.tenant_id = p_tenant AND b.booking_id = j.bid) x
     ORDER BY grp, seat;
END//

CREATE OR REPLACE PROCEDURE ${slotbook_prefix}expire_due(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_now DATETIME(6),
    p_limit INT)
MODIFIES SQL DATA
BEGIN
    DECLARE v_now DATETIME(6) DEFAULT COALESCE(p_now, UTC_TIMESTAMP(6));
    DECLARE v_n INT DEFAULT 0;
    DECLARE v_cand, v_ids LONGTEXT;
    DECLARE r_tag VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_booking, r_request, r_slot, r_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_seat INT;
    DECLARE r_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_held, r_created, r_updated DATETIME(6);
    DECLARE r_kind VARCHAR(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_res VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_start, r_end DATETIME(6);
    DECLARE r_coach, r_room VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE r_capacity INT;
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
        SELECT JSON_ARRAYAGG(JSON_ARRAY(d.booking_id, d.slot_id, d.seat)) INTO v_cand
          FROM (SELECT booking_id, slot_id, seat FROM ${slotbook_prefix}booking
                 WHERE tenant_id = p_tenant AND status = 'HELD' AND held_until <= v_now
                 ORDER BY held_until LIMIT p_limit) d;
        IF v_cand IS NULL THEN
            LEAVE main;
        END IF;
        -- the seat rows decide: lock those still held by the due booking (another sweeper or a
        -- claim taking the seat over may have been first); exactly these are expired
        SET STATEMENT group_concat_max_len = 4294967295 FOR
        SELECT COUNT(*), JSON_ARRAYAGG(JSON_ARRAY(s.booking_id, s.slot_id, s.seq)) INTO v_n, v_ids
          FROM JSON_TABLE(v_cand, '$[*]' COLUMNS (
                       bid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
                       sid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                       sq INT PATH '$[2]')) j
          STRAIGHT_JOIN ${slotbook_prefix}slot_seat s ON s.tenant_id = p_tenant AND s.slot_id = j.sid AND s.seq = j.sq
         WHERE s.booking_id = j.bid AND s.status = 'HELD' AND s.held_until <= v_now
           FOR UPDATE;
        IF v_n = 0 THEN
            SET v_ids = NULL;
            LEAVE main;
        END IF;
        UPDATE JSON_TABLE(v_ids, '$[*]' COLUMNS (
                       bid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
                       sid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                       sq INT PATH '$[2]')) j
          STRAIGHT_JOIN ${slotbook_prefix}slot_seat s ON s.tenant_id = p_tenant AND s.slot_id = j.sid AND s.seq = j.sq
           SET s.status = 'FREE', s.booking_id = NULL, s.student_id = NULL, s.held_until = NULL;
        UPDATE JSON_TABLE(v_ids, '$[*]' COLUMNS (
                       bid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
                       sid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                       sq INT PATH '$[2]')) j
          STRAIGHT_JOIN ${slotbook_prefix}booking b ON b.tenant_id = p_tenant AND b.booking_id = j.bid
           SET b.status = 'EXPIRED', b.updated_at = v_now
         WHERE b.status = 'HELD';
        IF ROW_COUNT() <> v_n THEN
            SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'expire_due: ledger rows disagree, an expired seat''s booking was not HELD';
        END IF;
        UPDATE JSON_TABLE(v_ids, '$[*]' COLUMNS (
                       bid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
                       sid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                       sq INT PATH '$[2]')) j
          STRAIGHT_JOIN ${slotbook_prefix}occupancy o ON o.tenant_id = p_tenant AND o.booking_id = j.bid
           SET o.active = FALSE
         WHERE o.active = TRUE;
    END main;
    COMMIT;

    SELECT tag, booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at,
           res_kind, res_id, starts_at, ends_at, coach_id, room_id, capacity
      FROM (SELECT 0 AS grp, r_tag AS tag, r_booking AS booking_id, r_request AS request_id, r_slot AS slot_id,
                   r_student AS student_id, r_seat AS seat, r_status AS status, r_held AS held_until,
                   r_created AS created_at, r_updated AS updated_at, r_kind AS res_kind, r_res AS res_id,
                   r_start AS starts_at, r_end AS ends_at, r_coach AS coach_id, r_room AS room_id, r_capacity AS capacity
              FROM DUAL WHERE r_tag IS NOT NULL
            UNION ALL
            SELECT 1, 'EV_EXPIRED', b.booking_id, b.request_id, b.slot_id, b.student_id, b.seat, b.status, b.held_until,
                   b.created_at, b.updated_at, NULL, NULL, NULL, NULL, NULL, NULL, NULL
              FROM JSON_TABLE(v_ids, '$[*]' COLUMNS (
                       bid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
                       sid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                       sq INT PATH '$[2]')) j
              STRAIGHT_JOIN ${slotbook_prefix}booking b ON b.tenant_id = p_tenant AND b.booking_id = j.bid) x
     ORDER BY grp, held_until, booking_id;
END//

DELIMITER ;
