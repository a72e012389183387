-- Slotbook decision procedures for MariaDB 10.6+ (tested on 10.11), run after schema-mariadb.sql.
-- ${prefix} is the table prefix (default slotbook_); Flyway users define the placeholder "prefix".
-- Every statement is idempotent (CREATE OR REPLACE PROCEDURE / FUNCTION).
--
-- Statement separator: ';' until a line "DELIMITER //" switches it to '//' (the procedure bodies
-- contain ';'), and "DELIMITER ;" switches it back: the convention of the mariadb/mysql command-line
-- client, which Flyway's MySQL/MariaDB parser and JdbcSchema (SqlScript) follow as well, so the file
-- runs unchanged through all three (after ${prefix} is replaced).
--
-- MySQL 8: the procedures are tested on MariaDB only. They use two MariaDB-only forms a MySQL user
-- must change: "CREATE OR REPLACE PROCEDURE x" becomes "DROP PROCEDURE IF EXISTS x" + "CREATE
-- PROCEDURE x" (functions alike), and the "SET STATEMENT ... FOR" prefixes go (MySQL's JSON_ARRAYAGG
-- has no group_concat_max_len limit, and its optimizer no exists_to_in). The rest (JSON_TABLE, SKIP
-- LOCKED, FORCE INDEX, SIGNAL/RESIGNAL) exists in MySQL 8 too.

-- ---------------------------------------------------------------------------------------------
-- One call per engine decision. Each decision procedure runs its own READ COMMITTED transaction
-- (call it with autocommit on), and answers with ONE result set of fact rows, always these 20 columns:
--   tag, booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at,
--   updated_at, res_kind, res_id, starts_at, ends_at, coach_id, room_id, capacity, ref_id, amount, note
-- (read by org.slotbook.jdbc.internal.Facts). Inside the transaction a fact row is a JSON array of the
-- 20 columns (built by fact, booking_fact, waiter_fact and slot_fact): the answer is one such row, the
-- events a JSON list of them in the order they happened, and both are selected once after COMMIT
-- (emit), so a failed commit never leaves a result set behind. hold, schedule and cancel_slot are
-- wrappers of hold_do, schedule_do and cancel_slot_do, which work inside the caller's transaction and
-- answer their rows as such a JSON list: hold_all, schedule_series and cancel_series run several of
-- them in one transaction.
-- The promotion terms of a call (hold micros, longest session micros, max upcoming, max per week,
-- waitlist cutoff micros, credit policy) travel as one value, built by terms, to retire and promote
-- (hold_do takes them as values); a slot's booking rules likewise as one value built by slot_rules,
-- to schedule_do.
-- Lock order everywhere: resource_lock rows (kind, then id), slot row, seat rows, lesson_package
-- rows, booking rows; a freed seat is offered to the slot's waitlist (promote) under the slot row's
-- lock, and the waiter's student lock (then his paying package) is taken after it (a deadlock this
-- may cause is retried by the caller: InnoDB rolls the whole call back, nothing of it stays). Two
-- exceptions: hold locks the package that will pay (FOR UPDATE under AT_BOOKING, in share mode under
-- AT_CHECK_IN) after the student's lock and before the seat it claims, so that a paid hold never waits
-- for a package while holding a seat; a refund (cancel, cancel_slot, an expired hold) locks the package after the seat
-- without the student's lock, and a hold holding that package never waits for that seat (it is the
-- same student's booking: his own live booking of the slot answers ALREADY, a dead one he retires
-- himself before he locks the package).
-- Reads that decide under a lock are locking reads (LOCK IN SHARE MODE, or FOR UPDATE): InnoDB can
-- grant a lock row (resource_lock, slot, seat) to this transaction while a read view opened right
-- after it still misses the changes of the transaction that held it, so a plain (consistent) read at
-- READ COMMITTED may not see the booking or occupation the previous holder just made (seen on 10.11:
-- two concurrent holds of one student for overlapping slots both passed the occupancy check). A
-- locking read reads the newest committed row and waits for an uncommitted one; a booking's fact row
-- is read in share mode for that reason.
-- p_now NULL means the database clock, UTC_TIMESTAMP(6), read once per call.
-- The helpers (the functions, lock_resource, find_payer, charge, refund, forfeit, promote, retire) and
-- the *_do procedures run inside the caller's transaction.
-- ---------------------------------------------------------------------------------------------

DELIMITER //

-- A fact row with only the tag and the columns given (booking_id, slot_id, seat, status, held_until,
-- res_kind); the others NULL.
CREATE OR REPLACE FUNCTION ${prefix}fact(
    p_tag VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_seat INT,
    p_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_held DATETIME(6),
    p_kind VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin)
RETURNS LONGTEXT
DETERMINISTIC
BEGIN
    RETURN JSON_ARRAY(p_tag, p_booking, NULL, p_slot, NULL, p_seat, p_status, p_held, NULL, NULL, p_kind, NULL,
                      NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
END//

-- The fact row p_tag of booking p_booking as it is now in this transaction (ref_id = its package,
-- amount = its credits, note = its attendance), read in share mode; NULL when there is none.
CREATE OR REPLACE FUNCTION ${prefix}booking_fact(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_tag VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin)
RETURNS LONGTEXT
READS SQL DATA
BEGIN
    DECLARE v_fact LONGTEXT;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    IF p_booking IS NOT NULL THEN
        SELECT JSON_ARRAY(p_tag, booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at,
                          updated_at, NULL, NULL, NULL, NULL, NULL, NULL, NULL, package_id, credits, attendance)
          INTO v_fact
          FROM ${prefix}booking WHERE tenant_id = p_tenant AND booking_id = p_booking LOCK IN SHARE MODE;
    END IF;
    RETURN v_fact;
END//

-- The fact row p_tag of the waitlist entry of request p_request (seat = its position among the
-- slot's WAITING entries, 0 once it is not waiting; created_at = when it joined; res_kind = why it
-- was skipped); NULL when there is none.
CREATE OR REPLACE FUNCTION ${prefix}waiter_fact(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_request VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_tag VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin)
RETURNS LONGTEXT
READS SQL DATA
BEGIN
    RETURN (SELECT JSON_ARRAY(p_tag, w.booking_id, w.request_id, w.slot_id, w.student_id,
                              IF(w.status = 'WAITING',
                                 (SELECT COUNT(*) FROM ${prefix}waiter o FORCE INDEX (${prefix}waiter_slot_ix)
                                   WHERE o.tenant_id = w.tenant_id AND o.slot_id = w.slot_id AND o.status = 'WAITING'
                                     AND o.seq <= w.seq),
                                 0),
                              w.status, NULL, w.joined_at, w.updated_at, w.reason, NULL, NULL, NULL, NULL, NULL, NULL,
                              NULL, NULL, NULL)
              FROM ${prefix}waiter w WHERE w.tenant_id = p_tenant AND w.request_id = p_request);
END//

-- The fact row p_tag of slot p_slot as stored: slot_id, the session, coach, room, capacity and status,
-- with its rules in the other columns (held_until = opens_at, created_at = closes_at, seat = buffer
-- seconds, res_kind = cancel policy, res_id = cancel cutoff seconds, student_id = 'STUDENTS' when the
-- buffer pads the students, ref_id = class type, amount = cost, note = series); NULL when there is none.
CREATE OR REPLACE FUNCTION ${prefix}slot_fact(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_tag VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin)
RETURNS LONGTEXT
READS SQL DATA
BEGIN
    RETURN (SELECT JSON_ARRAY(p_tag, NULL, NULL, slot_id, IF(buffer_students, 'STUDENTS', NULL), buffer_seconds, status,
                              opens_at, closes_at, NULL, cancel_policy, CAST(cancel_cutoff_seconds AS CHAR), starts_at,
                              ends_at, coach_id, room_id, capacity, class_type, cost, series_id)
              FROM ${prefix}slot WHERE tenant_id = p_tenant AND slot_id = p_slot);
END//

-- The JSON list p_events with fact row p_fact appended (unchanged when p_fact is NULL).
CREATE OR REPLACE FUNCTION ${prefix}noted(p_events LONGTEXT, p_fact LONGTEXT)
RETURNS LONGTEXT
DETERMINISTIC
BEGIN
    RETURN IF(p_fact IS NULL, p_events, JSON_ARRAY_APPEND(COALESCE(p_events, '[]'), '$', JSON_EXTRACT(p_fact, '$')));
END//

-- The rows of an answer as one JSON list: the answer row (a fact row, NULL: none), then the lists
-- p_conf (CONFLICT rows) and p_events, each NULL when empty.
CREATE OR REPLACE FUNCTION ${prefix}answer_rows(p_answer LONGTEXT, p_conf LONGTEXT, p_events LONGTEXT)
RETURNS LONGTEXT
DETERMINISTIC
BEGIN
    RETURN JSON_MERGE_PRESERVE(IF(p_answer IS NULL, '[]', CONCAT('[', p_answer, ']')), COALESCE(p_conf, '[]'),
                               COALESCE(p_events, '[]'));
END//

-- The one result set of a decision: the rows of the JSON list p_rows, in order, as the 20 columns;
-- p_by_position (hold_batch): ordered by capacity (a hold's position) first, each hold's rows in order.
-- The fence of a router's move (TenantMove): refuses, with SQLSTATE SB002, a tenant this database does
-- not serve (a tenant_fence row FENCED or MOVED; no row, or OWNED, is served). Every decision calls it
-- first in its transaction, which then holds the table's metadata lock until it ends: a move fences a
-- tenant under LOCK TABLES ... WRITE, so it waits for every call that read the fence before it, and
-- every call after it sees the fence.
CREATE OR REPLACE PROCEDURE ${prefix}fence_check(p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin)
READS SQL DATA
BEGIN
    DECLARE v_state VARCHAR(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_epoch BIGINT;
    DECLARE v_message VARCHAR(255) CHARACTER SET utf8mb4;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    SELECT f.state, f.epoch INTO v_state, v_epoch FROM ${prefix}tenant_fence f WHERE f.tenant_id = p_tenant;
    IF v_state IS NOT NULL AND v_state <> 'OWNED' THEN
        SET v_message = CONCAT('tenant ', p_tenant, ' is ', v_state, ' on this database (fence epoch ', v_epoch,
                               '): call its current shard');
        SIGNAL SQLSTATE 'SB002' SET MESSAGE_TEXT = v_message;
    END IF;
END//

CREATE OR REPLACE PROCEDURE ${prefix}emit(p_rows LONGTEXT, p_by_position BOOLEAN)
READS SQL DATA
BEGIN
    SELECT tag, booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at,
           res_kind, res_id, starts_at, ends_at, coach_id, room_id, capacity, ref_id, amount, note
      FROM JSON_TABLE(p_rows, '$[*]' COLUMNS (
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
               res_kind VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[10]',
               res_id VARCHAR(700) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[11]',
               starts_at DATETIME(6) PATH '$[12]',
               ends_at DATETIME(6) PATH '$[13]',
               coach_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[14]',
               room_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[15]',
               capacity INT PATH '$[16]',
               ref_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[17]',
               amount INT PATH '$[18]',
               note VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[19]')) x
     ORDER BY IF(p_by_position, capacity, 0), ord;
END//

-- The outbox: writes the booking events (EV_* rows but EV_SKIPPED) of the JSON list of fact rows
-- p_rows into the event table of tenant p_tenant, in their order, inside the caller's transaction
-- (before its COMMIT): the decision's one call writes its events with it.
CREATE OR REPLACE PROCEDURE ${prefix}outbox_write(p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
                                                  p_rows LONGTEXT)
MODIFIES SQL DATA
BEGIN
    IF p_rows IS NOT NULL AND p_rows LIKE '%"EV\\_%' THEN
        INSERT INTO ${prefix}event (tenant_id, kind, booking_id, request_id, slot_id, student_id, seat, status,
                                    held_until, created_at, updated_at, package_id, credits, attendance, written_at)
        SELECT p_tenant, SUBSTRING(x.tag, 4), x.booking_id, x.request_id, x.slot_id, x.student_id, x.seat, x.status,
               x.held_until, x.created_at, x.updated_at, x.ref_id, COALESCE(x.amount, 0), COALESCE(x.note, 'NONE'),
               x.updated_at
          FROM JSON_TABLE(p_rows, '$[*]' COLUMNS (
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
                   capacity INT PATH '$[16]',
                   ref_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[17]',
                   amount INT PATH '$[18]',
                   note VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[19]')) x
         WHERE x.tag LIKE 'EV\_%' AND x.tag <> 'EV_SKIPPED'
         ORDER BY x.ord;
    END IF;
END//

-- The outbox of hold_batch and hold_all: the events of the JSON list p_rows (each row's capacity = its
-- hold's position in the commands p_json, as lists of fields, whose field 14 is the hold's tenant when
-- p_tenant is NULL), and one event per TAKEN row (a plain hold: HELD or CONFIRMED, the booking's ids and
-- status those of its command), in the order of the rows.
CREATE OR REPLACE PROCEDURE ${prefix}outbox_batch(p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
                                                  p_rows LONGTEXT, p_json LONGTEXT)
MODIFIES SQL DATA
BEGIN
    INSERT INTO ${prefix}event (tenant_id, kind, booking_id, request_id, slot_id, student_id, seat, status,
                                held_until, created_at, updated_at, package_id, credits, attendance, written_at)
    SELECT COALESCE(p_tenant, t.tenant), IF(x.tag = 'TAKEN', t.status, SUBSTRING(x.tag, 4)), IF(x.tag = 'TAKEN', t.booking, x.booking_id),
           IF(x.tag = 'TAKEN', t.request, x.request_id), IF(x.tag = 'TAKEN', t.slot, x.slot_id),
           IF(x.tag = 'TAKEN', t.student, x.student_id), x.seat, IF(x.tag = 'TAKEN', t.status, x.status),
           x.held_until, x.created_at, IF(x.tag = 'TAKEN', x.created_at, x.updated_at), x.ref_id,
           COALESCE(x.amount, 0), COALESCE(x.note, 'NONE'), IF(x.tag = 'TAKEN', x.created_at, x.updated_at)
      FROM JSON_TABLE(p_rows, '$[*]' COLUMNS (
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
                   capacity INT PATH '$[16]',
                   ref_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[17]',
                   amount INT PATH '$[18]',
                   note VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[19]')) x
      JOIN JSON_TABLE(p_json, '$[*]' COLUMNS (
               pos FOR ORDINALITY,
               booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
               request VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
               slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[2]',
               student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[3]',
               status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[4]',
               tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[14]')) t ON t.pos = x.capacity
     WHERE x.tag = 'TAKEN' OR (x.tag LIKE 'EV\_%' AND x.tag <> 'EV_SKIPPED')
     ORDER BY x.capacity, x.ord;
END//

-- The promotion terms of a call as one value (a JSON array, read back with JSON_VALUE by position):
-- [0] how long a promoted hold lasts, [1] the longest session, [2] max upcoming, [3] max per week,
-- [4] the waitlist cutoff (micros), [5] the credit policy.
CREATE OR REPLACE FUNCTION ${prefix}terms(p_hold_micros BIGINT, p_longest_micros BIGINT, p_max_upcoming INT,
                                          p_max_week INT, p_waitlist_cutoff_micros BIGINT,
                                          p_credit_policy VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin)
RETURNS LONGTEXT
DETERMINISTIC
BEGIN
    RETURN JSON_ARRAY(p_hold_micros, p_longest_micros, p_max_upcoming, p_max_week, p_waitlist_cutoff_micros,
                      p_credit_policy);
END//

-- The booking rules of a slot as one value (a JSON array, read back with JSON_VALUE by position):
-- [0] opens_at, [1] closes_at, [2] buffer seconds (NULL: 0), [3] cancel policy, [4] cancel cutoff
-- seconds, [5] week start, [6] week end, [7] 1 when the buffer pads the students too, [8] class type,
-- [9] cost (NULL: 0).
CREATE OR REPLACE FUNCTION ${prefix}slot_rules(p_opens_at DATETIME(6), p_closes_at DATETIME(6), p_buffer_seconds INT,
                                               p_cancel_policy VARCHAR(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
                                               p_cancel_cutoff_seconds INT, p_week_start DATETIME(6),
                                               p_week_end DATETIME(6), p_buffer_students BOOLEAN,
                                               p_class_type VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
                                               p_cost INT)
RETURNS LONGTEXT
DETERMINISTIC
BEGIN
    RETURN JSON_ARRAY(p_opens_at, p_closes_at, COALESCE(p_buffer_seconds, 0), p_cancel_policy, p_cancel_cutoff_seconds,
                      p_week_start, p_week_end, IF(COALESCE(p_buffer_students, FALSE), 1, 0), p_class_type,
                      COALESCE(p_cost, 0));
END//

-- Record p_k (from 1) of p_text, records separated by CHAR(30).
CREATE OR REPLACE FUNCTION ${prefix}record(p_text LONGTEXT, p_k INT)
RETURNS LONGTEXT
DETERMINISTIC
BEGIN
    RETURN SUBSTRING_INDEX(SUBSTRING_INDEX(p_text, CHAR(30), p_k), CHAR(30), -1);
END//

-- Field p_i (from 1) of p_text split at p_sep; NULL when it is empty.
CREATE OR REPLACE FUNCTION ${prefix}rec_field(p_text LONGTEXT, p_sep VARCHAR(1), p_i INT)
RETURNS LONGTEXT
DETERMINISTIC
BEGIN
    RETURN NULLIF(SUBSTRING_INDEX(SUBSTRING_INDEX(p_text, p_sep, p_i), p_sep, -1), '');
END//

-- The number of records of a batch call (schedule_series, hold_all) in p_records, after checking its
-- mode p_mode (ALL_OR_NOTHING or BEST_EFFORT).
CREATE OR REPLACE FUNCTION ${prefix}batch_size(p_mode VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
                                               p_records LONGTEXT)
RETURNS INT
DETERMINISTIC
BEGIN
    IF p_mode IS NULL OR p_mode NOT IN ('ALL_OR_NOTHING', 'BEST_EFFORT') THEN
        SIGNAL SQLSTATE '22023' SET MESSAGE_TEXT = 'p_mode must be ALL_OR_NOTHING or BEST_EFFORT';
    END IF;
    RETURN IF(COALESCE(p_records, '') = '', 0,
              CHAR_LENGTH(p_records) - CHAR_LENGTH(REPLACE(p_records, CHAR(30), '')) + 1);
END//

-- An instant from microseconds since the epoch as text (NULL or '': NULL), without the session zone.
CREATE OR REPLACE FUNCTION ${prefix}micros_dt(p_micros VARCHAR(32))
RETURNS DATETIME(6)
DETERMINISTIC
BEGIN
    IF p_micros IS NULL OR p_micros = '' THEN
        RETURN NULL;
    END IF;
    RETURN CAST('1970-01-01 00:00:00' AS DATETIME(6)) + INTERVAL CAST(p_micros AS SIGNED) MICROSECOND;
END//

-- Takes the lock of a coach, room or student (p_kind COACH, ROOM, STUDENT): its resource_lock row,
-- written on first use, locked FOR UPDATE (an insert that finds the row locks it exclusively).
CREATE OR REPLACE PROCEDURE ${prefix}lock_resource(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_kind VARCHAR(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_id VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin)
MODIFIES SQL DATA
BEGIN
    INSERT INTO ${prefix}resource_lock (tenant_id, resource_kind, resource_id) VALUES (p_tenant, p_kind, p_id)
        ON DUPLICATE KEY UPDATE resource_id = resource_id;
END//

-- Credits. A slot with cost > 0 is paid by the student's package that covers it (valid_from <= start <
-- valid_until, class_types '' or naming the slot's class type) and holds the cost: the earliest
-- valid_until, then the lowest package id. Every change of a package's remaining writes its journal
-- entry (credit_entry) in the same transaction.

-- The package that pays for p_student's seat in p_slot, read with a locking read: p_lock 1 locks it
-- FOR UPDATE (it pays now), 0 in share mode (it is only required). The scan locks the candidates in
-- payer order and checks each under its lock, so a concurrent draw that emptied one is seen. NULL when
-- none can pay, or the slot costs nothing (the slot columns read never change once scheduled).
-- Mirrors the rules kernel: Credits.payer (org.slotbook.core.internal.rules).
CREATE OR REPLACE PROCEDURE ${prefix}find_payer(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_lock INT,
    OUT o_package VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin)
READS SQL DATA
BEGIN
    DECLARE v_cost INT DEFAULT 0;
    DECLARE v_start DATETIME(6);
    DECLARE v_class VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    SET o_package = NULL;
    SELECT cost, starts_at, class_type INTO v_cost, v_start, v_class
      FROM ${prefix}slot WHERE tenant_id = p_tenant AND slot_id = p_slot;
    IF v_cost > 0 THEN
        IF p_lock = 1 THEN
            SELECT package_id INTO o_package
              FROM ${prefix}lesson_package FORCE INDEX (${prefix}lesson_package_student_ix)
             WHERE tenant_id = p_tenant AND student_id = p_student AND valid_until > v_start
               AND valid_from <= v_start AND remaining >= v_cost
               AND (class_types = '' OR FIND_IN_SET(v_class, class_types) > 0)
             ORDER BY valid_until, package_id LIMIT 1 FOR UPDATE;
        ELSE
            SELECT package_id INTO o_package
              FROM ${prefix}lesson_package FORCE INDEX (${prefix}lesson_package_student_ix)
             WHERE tenant_id = p_tenant AND student_id = p_student AND valid_until > v_start
               AND valid_from <= v_start AND remaining >= v_cost
               AND (class_types = '' OR FIND_IN_SET(v_class, class_types) > 0)
             ORDER BY valid_until, package_id LIMIT 1 LOCK IN SHARE MODE;
        END IF;
    END IF;
END//

-- Draws p_cost from package p_package (locked by the caller and checked) for booking p_booking:
-- remaining, the journal entry (p_reason DRAW or FORFEIT), the booking's package and credits.
-- Mirrors the rules kernel: Credits.charge (org.slotbook.core.internal.rules).
CREATE OR REPLACE PROCEDURE ${prefix}charge(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_package VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_cost INT,
    p_reason VARCHAR(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_now DATETIME(6))
MODIFIES SQL DATA
BEGIN
    DECLARE v_request VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    UPDATE ${prefix}lesson_package SET remaining = remaining - p_cost
     WHERE tenant_id = p_tenant AND package_id = p_package AND remaining >= p_cost;
    IF ROW_COUNT() <> 1 THEN
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'charge: ledger rows disagree, the locked payer cannot pay';
    END IF;
    SELECT request_id INTO v_request FROM ${prefix}booking
     WHERE tenant_id = p_tenant AND booking_id = p_booking FOR UPDATE;
    INSERT INTO ${prefix}credit_entry (tenant_id, package_id, reason, delta, booking_id, request_id, at)
        VALUES (p_tenant, p_package, p_reason, -p_cost, p_booking, v_request, p_now);
    UPDATE ${prefix}booking SET package_id = p_package, credits = p_cost, updated_at = p_now
     WHERE tenant_id = p_tenant AND booking_id = p_booking;
END//

-- Gives back the credits booking p_booking holds, if any (REFUND): the package's remaining, the journal
-- entry, the booking holding none. Called under the booking's seat row lock.
-- Mirrors the rules kernel: Credits.refund (org.slotbook.core.internal.rules).
CREATE OR REPLACE PROCEDURE ${prefix}refund(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_now DATETIME(6))
MODIFIES SQL DATA
BEGIN
    DECLARE v_package, v_request VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_credits INT DEFAULT 0;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    SELECT package_id, credits, request_id INTO v_package, v_credits, v_request FROM ${prefix}booking
     WHERE tenant_id = p_tenant AND booking_id = p_booking FOR UPDATE;
    IF v_credits > 0 AND v_package IS NOT NULL THEN
        UPDATE ${prefix}lesson_package SET remaining = remaining + v_credits
         WHERE tenant_id = p_tenant AND package_id = v_package;
        INSERT INTO ${prefix}credit_entry (tenant_id, package_id, reason, delta, booking_id, request_id, at)
            VALUES (p_tenant, v_package, 'REFUND', v_credits, p_booking, v_request, p_now);
        UPDATE ${prefix}booking SET package_id = NULL, credits = 0, updated_at = p_now
         WHERE tenant_id = p_tenant AND booking_id = p_booking;
    END IF;
END//

-- Gives back the credits p_student's dead holds (HELD, deadline passed by p_now, not swept yet) still
-- hold, each under its seat row's lock and checked again there (a sweeper, a takeover or a cancel may
-- have been first, and refunded it); the holds stay for them to expire. Called when no package can
-- pay: a credit in a hold that ran out is the student's again. o_any: whether there was any such hold
-- (its credit is back, by this call or the one that was first). His active occupations lead to his
-- bookings (his index, then each booking by its key).
-- Mirrors the rules kernel: Credits.refundDeadHolds, through Credits.payer (org.slotbook.core.internal.rules).
CREATE OR REPLACE PROCEDURE ${prefix}refund_dead_holds(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_now DATETIME(6),
    OUT o_any BOOLEAN)
MODIFIES SQL DATA
BEGIN
    DECLARE v_bid, v_slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_after VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT '';
    DECLARE v_seat, v_seq INT;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    SET o_any = FALSE;
    dead: LOOP
        SET v_bid = NULL, v_seq = NULL;
        SELECT b.booking_id, b.slot_id, b.seat INTO v_bid, v_slot, v_seat
          FROM ${prefix}occupancy o FORCE INDEX (${prefix}occupancy_overlap_ix)
          STRAIGHT_JOIN ${prefix}booking b FORCE INDEX (PRIMARY)
            ON b.tenant_id = o.tenant_id AND b.booking_id = o.booking_id
         WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = p_student
           AND o.active = TRUE AND b.status = 'HELD' AND b.held_until <= p_now AND b.credits > 0
           AND b.booking_id > v_after
         ORDER BY b.booking_id LIMIT 1;
        IF v_bid IS NULL THEN
            LEAVE dead;
        END IF;
        SET v_after = v_bid;
        SELECT seq INTO v_seq FROM ${prefix}slot_seat
         WHERE tenant_id = p_tenant AND slot_id = v_slot AND seq = v_seat AND status = 'HELD'
           AND booking_id = v_bid AND held_until <= p_now FOR UPDATE;
        IF v_seq IS NOT NULL THEN
            CALL ${prefix}refund(p_tenant, v_bid, p_now);
        END IF;
        SET o_any = TRUE;
    END LOOP dead;
END//

-- What a late cancel by the student and a no-show cost under AT_CHECK_IN: a booking of a slot with a
-- cost that holds no credits draws them as a FORFEIT when a package can pay (else nothing).
-- Mirrors the rules kernel: Credits.forfeit (org.slotbook.core.internal.rules).
CREATE OR REPLACE PROCEDURE ${prefix}forfeit(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_credit_policy VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_now DATETIME(6))
MODIFIES SQL DATA
BEGIN
    DECLARE v_slot, v_student, v_payer VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_credits, v_cost INT DEFAULT 0;
    DECLARE v_refunded BOOLEAN DEFAULT FALSE;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    IF p_credit_policy = 'AT_CHECK_IN' THEN
        SELECT b.slot_id, b.student_id, b.credits, s.cost INTO v_slot, v_student, v_credits, v_cost
          FROM ${prefix}booking b
          JOIN ${prefix}slot s ON s.tenant_id = b.tenant_id AND s.slot_id = b.slot_id
         WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking;
        IF v_cost > 0 AND v_credits = 0 THEN
            CALL ${prefix}find_payer(p_tenant, v_student, v_slot, 1, v_payer);
            IF v_payer IS NULL THEN
                CALL ${prefix}refund_dead_holds(p_tenant, v_student, p_now, v_refunded);
                IF v_refunded THEN
                    CALL ${prefix}find_payer(p_tenant, v_student, v_slot, 1, v_payer);
                END IF;
            END IF;
            IF v_payer IS NOT NULL THEN
                CALL ${prefix}charge(p_tenant, p_booking, v_payer, v_cost, 'FORFEIT', p_now);
            END IF;
        END IF;
    END IF;
END//

-- Expires HELD booking p_booking whose seat the caller has just freed or handed on (under the seat
-- row's lock): its credits refunded, the booking EXPIRED (EV_EXPIRED), its occupation inactive.
-- Mirrors the rules kernel: Seating.expire (org.slotbook.core.internal.rules).
CREATE OR REPLACE PROCEDURE ${prefix}expire_booking(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_now DATETIME(6),
    INOUT p_events LONGTEXT)
MODIFIES SQL DATA
BEGIN
    CALL ${prefix}refund(p_tenant, p_booking, p_now);
    UPDATE ${prefix}booking SET status = 'EXPIRED', updated_at = p_now
     WHERE tenant_id = p_tenant AND booking_id = p_booking AND status = 'HELD';
    IF ROW_COUNT() <> 1 THEN
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'expire: ledger rows disagree, the seat changed but the booking was not HELD';
    END IF;
    UPDATE ${prefix}occupancy SET active = FALSE
     WHERE tenant_id = p_tenant AND booking_id = p_booking AND active = TRUE;
    SET p_events = ${prefix}noted(p_events, ${prefix}booking_fact(p_tenant, p_booking, 'EV_EXPIRED'));
END//

-- A seat of slot p_slot was freed by the caller, who holds the slot row's lock: give a free seat to the
-- first WAITING waiter who can take it (no HELD or CONFIRMED booking of the slot, no live overlapping
-- booking, within the limits), as a HELD booking (EV_PROMOTED); those passed over become SKIPPED
-- (EV_SKIPPED). Nothing while the slot is not OPEN, or at or after its start minus the waitlist cutoff.
-- A slot with a cost: a waiter none of whose packages can pay it is SKIPPED (NO_CREDITS, after the other
-- reasons); under the credit policy AT_BOOKING the promoted booking draws it (its package locked after
-- the waiter's student lock). p_terms: the call's promotion terms (terms).
-- Mirrors the rules kernel: Seating.promote (org.slotbook.core.internal.rules).
CREATE OR REPLACE PROCEDURE ${prefix}promote(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_terms LONGTEXT,
    p_slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_now DATETIME(6),
    INOUT p_events LONGTEXT)
MODIFIES SQL DATA
BEGIN
    DECLARE v_longest BIGINT DEFAULT JSON_VALUE(p_terms, '$[1]');
    DECLARE v_max_upcoming INT DEFAULT JSON_VALUE(p_terms, '$[2]');
    DECLARE v_max_week INT DEFAULT JSON_VALUE(p_terms, '$[3]');
    DECLARE v_policy VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT JSON_VALUE(p_terms, '$[5]');
    DECLARE v_held_until DATETIME(6) DEFAULT p_now + INTERVAL JSON_VALUE(p_terms, '$[0]') MICROSECOND;
    DECLARE v_cost INT DEFAULT 0;
    DECLARE v_payer VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_refunded BOOLEAN DEFAULT FALSE;
    DECLARE v_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_start, v_end, v_week_start, v_week_end, v_joined DATETIME(6);
    DECLARE v_seat INT;
    DECLARE v_wseq BIGINT;
    DECLARE v_request, v_student, v_booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_reason VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_n, v_up, v_week INT DEFAULT 0;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;

    -- the student's time: the session, and its buffer when the slot pads its students too
    SELECT status, starts_at, IF(buffer_students, ends_at + INTERVAL buffer_seconds SECOND, ends_at), week_start,
           week_end, cost
      INTO v_status, v_start, v_end, v_week_start, v_week_end, v_cost
      FROM ${prefix}slot WHERE tenant_id = p_tenant AND slot_id = p_slot;
    walk: BEGIN
        IF v_status IS NULL OR v_status <> 'OPEN'
           OR p_now >= v_start - INTERVAL JSON_VALUE(p_terms, '$[4]') MICROSECOND THEN
            LEAVE walk;
        END IF;
        -- the first free seat (the one just freed is locked by this transaction, so it is never skipped)
        SELECT seq INTO v_seat FROM ${prefix}slot_seat FORCE INDEX (${prefix}slot_seat_claim_ix)
         WHERE tenant_id = p_tenant AND slot_id = p_slot AND status = 'FREE'
         ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED;
        IF v_seat IS NULL THEN
            LEAVE walk;
        END IF;
        next_waiter: LOOP
            SET v_wseq = NULL, v_reason = NULL, v_up = 0, v_week = 0, v_payer = NULL;
            SELECT seq, request_id, student_id, booking_id, joined_at
              INTO v_wseq, v_request, v_student, v_booking, v_joined
              FROM ${prefix}waiter FORCE INDEX (${prefix}waiter_slot_ix)
             WHERE tenant_id = p_tenant AND slot_id = p_slot AND status = 'WAITING'
             ORDER BY seq LIMIT 1 FOR UPDATE;
            IF v_wseq IS NULL THEN
                LEAVE walk;
            END IF;
            CALL ${prefix}lock_resource(p_tenant, 'STUDENT', v_student);
            -- what the student's lock guards is read with locking reads (see hold_do, step 5)
            SELECT COUNT(*) INTO v_n FROM ${prefix}booking
             WHERE tenant_id = p_tenant AND slot_id = p_slot AND student_id = v_student
               AND status IN ('HELD', 'CONFIRMED') LOCK IN SHARE MODE;
            IF v_n = 0 THEN
                SELECT COUNT(*) INTO v_n FROM ${prefix}occupancy o
                 WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = v_student
                   AND o.active = TRUE AND o.starts_at < v_end AND o.ends_at > v_start
                   AND o.starts_at > v_start - INTERVAL v_longest MICROSECOND
                   AND NOT EXISTS (SELECT 1 FROM ${prefix}booking b
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
                IF v_max_upcoming > 0 THEN
                    SELECT COUNT(*) INTO v_up
                      FROM ${prefix}occupancy o
                     WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = v_student
                       AND o.active = TRUE AND o.starts_at > p_now - INTERVAL v_longest MICROSECOND
                       AND o.ends_at > p_now
                       AND NOT EXISTS (SELECT 1 FROM ${prefix}booking b
                                        WHERE b.tenant_id = p_tenant AND b.booking_id = o.booking_id
                                          AND b.status = 'HELD' AND b.held_until <= p_now) LOCK IN SHARE MODE;
                END IF;
                IF v_max_week > 0 AND v_week_start IS NOT NULL THEN
                    SELECT COUNT(*) INTO v_week
                      FROM ${prefix}occupancy o
                     WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = v_student
                       AND o.active = TRUE AND o.starts_at >= v_week_start AND o.starts_at < v_week_end
                       AND NOT EXISTS (SELECT 1 FROM ${prefix}booking b
                                        WHERE b.tenant_id = p_tenant AND b.booking_id = o.booking_id
                                          AND b.status = 'HELD' AND b.held_until <= p_now) LOCK IN SHARE MODE;
                END IF;
                IF (v_max_upcoming > 0 AND v_up >= v_max_upcoming) OR (v_max_week > 0 AND v_week >= v_max_week) THEN
                    SET v_reason = 'LIMIT';
                ELSEIF v_cost > 0 THEN
                    -- a package that can pay: locked for update when it pays now, else only required
                    CALL ${prefix}find_payer(p_tenant, v_student, p_slot, IF(v_policy = 'AT_BOOKING', 1, 0), v_payer);
                    IF v_payer IS NULL THEN
                        CALL ${prefix}refund_dead_holds(p_tenant, v_student, p_now, v_refunded);
                        IF v_refunded THEN
                            CALL ${prefix}find_payer(p_tenant, v_student, p_slot, IF(v_policy = 'AT_BOOKING', 1, 0), v_payer);
                        END IF;
                    END IF;
                    IF v_payer IS NULL THEN
                        SET v_reason = 'NO_CREDITS';
                    END IF;
                END IF;
            END IF;
            IF v_reason IS NOT NULL THEN
                UPDATE ${prefix}waiter SET status = 'SKIPPED', reason = v_reason, updated_at = p_now
                 WHERE tenant_id = p_tenant AND request_id = v_request AND status = 'WAITING';
                SET p_events = ${prefix}noted(p_events,
                    JSON_ARRAY('EV_SKIPPED', v_booking, v_request, p_slot, v_student, 0, 'SKIPPED', NULL, v_joined,
                               p_now, v_reason, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
                ITERATE next_waiter;
            END IF;
            UPDATE ${prefix}slot_seat
               SET status = 'HELD', booking_id = v_booking, student_id = v_student, held_until = v_held_until
             WHERE tenant_id = p_tenant AND slot_id = p_slot AND seq = v_seat AND status = 'FREE';
            IF ROW_COUNT() <> 1 THEN
                SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'promote: ledger rows disagree, the locked free seat is not FREE';
            END IF;
            INSERT INTO ${prefix}booking (tenant_id, booking_id, request_id, slot_id, student_id, seat, status,
                                          held_until, created_at, updated_at)
                VALUES (p_tenant, v_booking, v_request, p_slot, v_student, v_seat, 'HELD', v_held_until, p_now, p_now);
            INSERT INTO ${prefix}occupancy (tenant_id, resource_kind, resource_id, starts_at, ends_at, slot_id,
                                            booking_id, active)
                VALUES (p_tenant, 'STUDENT', v_student, v_start, v_end, p_slot, v_booking, TRUE);
            IF v_cost > 0 AND v_policy = 'AT_BOOKING' THEN
                CALL ${prefix}charge(p_tenant, v_booking, v_payer, v_cost, 'DRAW', p_now);
            END IF;
            UPDATE ${prefix}waiter SET status = 'PROMOTED', updated_at = p_now
             WHERE tenant_id = p_tenant AND request_id = v_request AND status = 'WAITING';
            SET p_events = ${prefix}noted(p_events, ${prefix}booking_fact(p_tenant, v_booking, 'EV_PROMOTED'));
            LEAVE walk;
        END LOOP next_waiter;
    END walk;
END//

-- Retires booking p_booking if it is a HELD booking whose hold ran out and still owns its seat:
-- locks the slot row, then the seat row; the seat becomes FREE, the booking EXPIRED (EV_EXPIRED), its
-- occupation inactive, its credits refunded, and the seat is offered to the waitlist (p_terms: the
-- call's promotion terms). o_done = 1 when this call retired it.
-- Mirrors the rules kernel: Seating.retire (org.slotbook.core.internal.rules).
CREATE OR REPLACE PROCEDURE ${prefix}retire(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_terms LONGTEXT,
    p_booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_now DATETIME(6),
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
      FROM ${prefix}booking WHERE tenant_id = p_tenant AND booking_id = p_booking;
    IF v_status = 'HELD' AND v_held <= p_now THEN
        SELECT COUNT(*) INTO v_n FROM ${prefix}slot WHERE tenant_id = p_tenant AND slot_id = v_slot FOR UPDATE;
        SELECT COUNT(*) INTO v_n FROM ${prefix}slot_seat
         WHERE tenant_id = p_tenant AND slot_id = v_slot AND seq = v_seat
           AND booking_id = p_booking AND status = 'HELD' AND held_until <= p_now
           FOR UPDATE;
        IF v_n = 1 THEN
            UPDATE ${prefix}slot_seat SET status = 'FREE', booking_id = NULL, student_id = NULL, held_until = NULL
             WHERE tenant_id = p_tenant AND slot_id = v_slot AND seq = v_seat AND booking_id = p_booking;
            CALL ${prefix}expire_booking(p_tenant, p_booking, p_now, p_events);
            SET o_done = 1;
            CALL ${prefix}promote(p_tenant, p_terms, v_slot, p_now, p_events);
        END IF;
    END IF;
END//

-- Schedules a slot inside the caller's transaction (schedule, schedule_series): locks coach and room,
-- answers EXISTS (the stored slot, nothing written) or CONFLICT rows (nothing written), else writes the
-- slot (with its booking rules p_rules, built by slot_rules, and its series), its seats and the coach
-- and room occupations and answers SCHEDULED; o_rows: the answer's rows as a JSON list.
-- Mirrors the rules kernel: Scheduling.schedule (org.slotbook.core.internal.rules).
CREATE OR REPLACE PROCEDURE ${prefix}schedule_do(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_coach VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_room VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_start DATETIME(6),
    p_end DATETIME(6),
    p_capacity INT,
    p_longest_micros BIGINT,
    p_series VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_rules LONGTEXT,
    OUT o_rows LONGTEXT)
MODIFIES SQL DATA
BEGIN
    DECLARE v_n INT DEFAULT 0;
    DECLARE v_dup INT DEFAULT 0;
    -- coach and room are taken until the end plus the buffer
    DECLARE v_padded DATETIME(6) DEFAULT p_end + INTERVAL JSON_VALUE(p_rules, '$[2]') SECOND;
    DECLARE v_answer, v_conf LONGTEXT;

    IF p_capacity IS NULL OR p_capacity < 1 OR p_capacity > 100000 THEN
        SIGNAL SQLSTATE '22003' SET MESSAGE_TEXT = 'schedule: capacity must be between 1 and 100000';
    END IF;
    main: BEGIN
        -- 1. coach, then room (COACH < ROOM); the row is created on first use
        CALL ${prefix}lock_resource(p_tenant, 'COACH', p_coach);
        CALL ${prefix}lock_resource(p_tenant, 'ROOM', p_room);

        -- 2. the slot exists: answer it as stored
        SET v_answer = ${prefix}slot_fact(p_tenant, p_slot, 'EXISTS');
        IF v_answer IS NOT NULL THEN
            LEAVE main;
        END IF;

        -- 3. overlapping (padded) sessions of the coach or the room
        SELECT COUNT(*), JSON_ARRAYAGG(JSON_ARRAY('CONFLICT', booking_id, NULL, slot_id, NULL, NULL, NULL, NULL, NULL,
                                                  NULL, resource_kind, resource_id, starts_at, ends_at, NULL, NULL,
                                                  NULL, NULL, NULL, NULL)
                                       ORDER BY resource_kind, resource_id, starts_at)
          INTO v_n, v_conf
          FROM ${prefix}occupancy
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
            INSERT INTO ${prefix}slot (tenant_id, slot_id, coach_id, room_id, starts_at, ends_at, capacity, status,
                                       opens_at, closes_at, buffer_seconds, cancel_policy, cancel_cutoff_seconds,
                                       week_start, week_end, buffer_students, class_type, cost, series_id)
                VALUES (p_tenant, p_slot, p_coach, p_room, p_start, p_end, p_capacity, 'OPEN',
                        JSON_VALUE(p_rules, '$[0]'), JSON_VALUE(p_rules, '$[1]'), JSON_VALUE(p_rules, '$[2]'),
                        JSON_VALUE(p_rules, '$[3]'), JSON_VALUE(p_rules, '$[4]'), JSON_VALUE(p_rules, '$[5]'),
                        JSON_VALUE(p_rules, '$[6]'), JSON_VALUE(p_rules, '$[7]'), JSON_VALUE(p_rules, '$[8]'),
                        JSON_VALUE(p_rules, '$[9]'), p_series);
        END;
        IF v_dup = 1 THEN
            SET v_answer = ${prefix}slot_fact(p_tenant, p_slot, 'EXISTS');
            LEAVE main;
        END IF;
        -- seats 1..capacity from five digit tables; each digit only as far as the capacity needs
        INSERT INTO ${prefix}slot_seat (tenant_id, slot_id, seq, status)
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
        INSERT INTO ${prefix}occupancy (tenant_id, resource_kind, resource_id, starts_at, ends_at, slot_id, booking_id, active)
            VALUES (p_tenant, 'COACH', p_coach, p_start, v_padded, p_slot, NULL, TRUE),
                   (p_tenant, 'ROOM', p_room, p_start, v_padded, p_slot, NULL, TRUE);
        SET v_answer = ${prefix}slot_fact(p_tenant, p_slot, 'SCHEDULED');
    END main;
    SET o_rows = ${prefix}answer_rows(v_answer, v_conf, NULL);
END//

-- schedule_do in its own READ COMMITTED transaction.
-- Mirrors the rules kernel: Rules.schedule (org.slotbook.core.internal.rules).
CREATE OR REPLACE PROCEDURE ${prefix}schedule(
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
    p_buffer_students BOOLEAN,
    p_class_type VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_cost INT,
    p_series VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin)
MODIFIES SQL DATA
BEGIN
    DECLARE v_rows LONGTEXT;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    START TRANSACTION;
    CALL ${prefix}fence_check(p_tenant);
    CALL ${prefix}schedule_do(p_tenant, p_slot, p_coach, p_room, p_start, p_end, p_capacity, p_longest_micros, p_series,
                              ${prefix}slot_rules(p_opens_at, p_closes_at, p_buffer_seconds, p_cancel_policy,
                                                  p_cancel_cutoff_seconds, p_week_start, p_week_end,
                                                  p_buffer_students, p_class_type, p_cost),
                              v_rows);
    COMMIT;
    CALL ${prefix}emit(v_rows, FALSE);
END//

-- Holds (p_status HELD) or books (CONFIRMED) a seat inside the caller's transaction (hold, hold_all);
-- the call's promotion terms come as values (a hold costs less without building and reading them as
-- JSON; hold_do builds that value only to retire a dead hold); o_rows: the answer's rows as a JSON
-- list. With p_plain
-- (hold), the two commonest answers skip the JSON: a seat taken with nothing else done on the way, unpaid
-- (o_tag HELD, o_seat, o_held = held until, o_at = now), and FULL (o_tag FULL); o_rows is then NULL and
-- the caller writes their rows. With p_no_wait (hold_batch) the hold waits for no lock but its
-- student's, and answers o_tag RETRY (o_rows NULL) where it would have to wait or do more than take a
-- free seat: a slot with a cost, the waitlist, dead holds to retire, no unlocked free seat; the caller
-- rolls back what it wrote (the student's lock row) and asks again with a call of its own. A slot with a
-- cost needs a package of the student that can pay it, for a seat and for a waitlist place alike (else
-- INSUFFICIENT_CREDITS, slot_id, seat = cost); under the credit policy AT_BOOKING the new booking draws it.
-- Mirrors the rules kernel: Holds.hold (org.slotbook.core.internal.rules).
CREATE OR REPLACE PROCEDURE ${prefix}hold_do(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_hold_micros BIGINT,
    p_longest_micros BIGINT,
    p_max_upcoming INT,
    p_max_week INT,
    p_waitlist_cutoff_micros BIGINT,
    p_credit_policy VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_request VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_now DATETIME(6),
    p_gate_held BOOLEAN,
    p_waitlist BOOLEAN,
    p_plain BOOLEAN,
    p_no_wait BOOLEAN,
    OUT o_rows LONGTEXT,
    OUT o_tag VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    OUT o_seat INT,
    OUT o_held DATETIME(6),
    OUT o_at DATETIME(6))
MODIFIES SQL DATA
BEGIN
    DECLARE v_now DATETIME(6) DEFAULT COALESCE(p_now, UTC_TIMESTAMP(6));
    DECLARE v_longest BIGINT DEFAULT p_longest_micros;
    DECLARE v_max_upcoming INT DEFAULT p_max_upcoming;
    DECLARE v_max_week INT DEFAULT p_max_week;
    DECLARE v_policy VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin DEFAULT p_credit_policy;
    DECLARE v_held_until DATETIME(6);
    DECLARE v_slot_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_start, v_end, v_student_end, v_lowest, v_opens, v_closes, v_week_start, v_week_end DATETIME(6);
    DECLARE v_cost INT DEFAULT 0;
    DECLARE v_n, v_overlaps INT DEFAULT 0;
    DECLARE v_live, v_full BOOLEAN;
    DECLARE v_oid BIGINT DEFAULT 0;
    DECLARE v_payer, v_own_dead, v_old, v_displaced, v_bid, v_mine VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_refunded BOOLEAN DEFAULT FALSE;
    DECLARE v_locked INT DEFAULT 0;
    DECLARE v_refuse VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_seq INT;
    DECLARE v_done, v_round, v_taken, v_none INT DEFAULT 0;
    DECLARE v_skip INT DEFAULT 1;
    DECLARE v_waiting INT;
    DECLARE v_waitlist INT DEFAULT IF(COALESCE(p_waitlist, FALSE), 1, 0);
    DECLARE v_answer, v_conf, v_events LONGTEXT;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;

    IF p_status IS NULL OR p_status NOT IN ('HELD', 'CONFIRMED') THEN
        SIGNAL SQLSTATE '22023' SET MESSAGE_TEXT = 'hold: p_status must be HELD or CONFIRMED';
    END IF;
    IF p_credit_policy IS NOT NULL AND p_credit_policy NOT IN ('AT_BOOKING', 'AT_CHECK_IN') THEN
        SIGNAL SQLSTATE '22023' SET MESSAGE_TEXT = 'hold: p_credit_policy must be AT_BOOKING, AT_CHECK_IN or NULL';
    END IF;
    SET v_held_until = v_now + INTERVAL p_hold_micros MICROSECOND;
    main: BEGIN
        -- 1. the slot; the student's time ends with the session, or its buffer when the slot pads its
        --    students too. Full by committed seats (v_full): asked here unless the gate counted this
        --    request or it may wait; the primary key would walk every sold seat of a hot slot: name the
        --    index that finds a free or ran-out seat at once
        SELECT status, starts_at, ends_at, opens_at, closes_at, week_start, week_end, cost,
               IF(buffer_students, ends_at + INTERVAL buffer_seconds SECOND, ends_at),
               NOT COALESCE(p_gate_held, FALSE) AND v_waitlist = 0
               AND NOT EXISTS (SELECT 1 FROM ${prefix}slot_seat f FORCE INDEX (${prefix}slot_seat_claim_ix)
                                WHERE f.tenant_id = p_tenant AND f.slot_id = p_slot AND f.status = 'FREE')
               AND NOT EXISTS (SELECT 1 FROM ${prefix}slot_seat h FORCE INDEX (${prefix}slot_seat_held_ix)
                                WHERE h.tenant_id = p_tenant AND h.slot_id = p_slot AND h.status = 'HELD'
                                  AND h.held_until <= v_now),
               -- the student's live booking there, in the same view as the full slot
               (SELECT m.booking_id FROM ${prefix}booking m FORCE INDEX (${prefix}booking_slot_ix)
                 WHERE m.tenant_id = p_tenant AND m.slot_id = p_slot AND m.student_id = p_student
                   AND (m.status = 'CONFIRMED' OR (m.status = 'HELD' AND v_now < m.held_until)) LIMIT 1)
          INTO v_slot_status, v_start, v_end, v_opens, v_closes, v_week_start, v_week_end, v_cost, v_student_end,
               v_full, v_mine
          FROM ${prefix}slot WHERE tenant_id = p_tenant AND slot_id = p_slot;
        IF v_slot_status IS NULL THEN
            SET v_answer = ${prefix}fact('NOT_FOUND', NULL, NULL, NULL, NULL, NULL, NULL);
            LEAVE main;
        END IF;

        -- 2. cancelled or over, 3. outside the booking window, 4. full by committed seats (answered
        --    without locking anything but a replayed booking's row): only a replay of this request, or
        --    the student's live booking of a full slot, is answered otherwise
        IF v_slot_status <> 'OPEN' OR v_now >= v_end THEN
            SET v_refuse = 'NOT_OPEN';
        ELSEIF v_opens IS NOT NULL AND v_now < v_opens THEN
            SET v_refuse = 'NOT_OPEN_YET';
        ELSEIF v_closes IS NOT NULL AND v_now >= v_closes THEN
            SET v_refuse = 'BOOKING_CLOSED';
        ELSEIF v_full THEN
            SET v_refuse = 'FULL';
        END IF;
        IF v_refuse IS NOT NULL THEN
            SELECT booking_id INTO v_bid FROM ${prefix}booking WHERE tenant_id = p_tenant AND request_id = p_request;
            IF v_bid IS NOT NULL THEN
                SET v_answer = ${prefix}booking_fact(p_tenant, v_bid, 'REPLAY');
            ELSEIF EXISTS (SELECT 1 FROM ${prefix}waiter WHERE tenant_id = p_tenant AND request_id = p_request) THEN
                SET v_answer = ${prefix}waiter_fact(p_tenant, p_request, 'WAITLISTED_REPLAY');
            END IF;
            IF v_answer IS NULL AND v_refuse = 'FULL' AND v_mine IS NOT NULL THEN
                -- the student check comes before capacity, on the view that found the slot full: his live
                -- booking is answered as it is now while it is still live (locked, so the copy is what
                -- was decided on); a cancel of it committed since freed a seat: decide the usual way
                SET v_bid = NULL;
                SELECT booking_id INTO v_bid FROM ${prefix}booking
                 WHERE tenant_id = p_tenant AND booking_id = v_mine
                   AND (status = 'CONFIRMED' OR (status = 'HELD' AND v_now < held_until)) LOCK IN SHARE MODE;
                IF v_bid IS NOT NULL THEN
                    SET v_answer = ${prefix}booking_fact(p_tenant, v_bid, 'ALREADY');
                ELSE
                    SET v_refuse = NULL;
                END IF;
            END IF;
        END IF;
        IF v_refuse IS NOT NULL THEN
            IF v_answer IS NULL AND v_refuse = 'FULL' AND p_no_wait THEN
                -- in a batch the view may count seats the batch itself took, not sold until it commits,
                -- after a seat may have been freed: a hold alone decides on committed seats only
                SET o_tag = 'RETRY';
                LEAVE main;
            END IF;
            IF v_answer IS NULL AND v_refuse = 'FULL' AND p_plain THEN
                -- the caller answers a plain FULL itself, without JSON (o_rows stays NULL)
                SET o_tag = 'FULL';
                LEAVE main;
            END IF;
            IF v_answer IS NULL THEN
                SET v_answer = ${prefix}fact(v_refuse, NULL, IF(v_refuse = 'FULL', NULL, p_slot), NULL,
                                             IF(v_refuse = 'NOT_OPEN', v_slot_status, NULL),
                                             CASE v_refuse WHEN 'NOT_OPEN_YET' THEN v_opens
                                                           WHEN 'BOOKING_CLOSED' THEN v_closes END, NULL);
            END IF;
            LEAVE main;
        END IF;

        -- no waiting (hold_batch): a paid seat or the waitlist is decided by a call of its own
        IF p_no_wait AND (v_cost > 0 OR v_waitlist = 1) THEN
            SET o_tag = 'RETRY';
            LEAVE main;
        END IF;

        -- 5. the student's lock. What it guards (the student's bookings, waitlist entries and
        --    occupations) is read from here on with locking reads (see the note at the top). A student
        --    new to the tenant has no lock row yet: a replay (the request id may be another student's,
        --    which the caller refuses) is answered before his row is written, so that it writes nothing;
        --    an attempt of his in flight is waited for by the locking read of the request
        SELECT COUNT(*) INTO v_locked FROM ${prefix}resource_lock
         WHERE tenant_id = p_tenant AND resource_kind = 'STUDENT' AND resource_id = p_student FOR UPDATE;
        IF v_locked = 0 THEN
            SELECT booking_id INTO v_bid FROM ${prefix}booking
             WHERE tenant_id = p_tenant AND request_id = p_request LOCK IN SHARE MODE;
            IF v_bid IS NOT NULL THEN
                SET v_answer = ${prefix}booking_fact(p_tenant, v_bid, 'REPLAY');
                LEAVE main;
            ELSEIF EXISTS (SELECT 1 FROM ${prefix}waiter WHERE tenant_id = p_tenant AND request_id = p_request) THEN
                SET v_answer = ${prefix}waiter_fact(p_tenant, p_request, 'WAITLISTED_REPLAY');
                LEAVE main;
            END IF;
            INSERT INTO ${prefix}resource_lock (tenant_id, resource_kind, resource_id)
                VALUES (p_tenant, 'STUDENT', p_student)
                ON DUPLICATE KEY UPDATE resource_id = resource_id;
        END IF;

        -- 6. a replay of this request (any slot, any status; the caller checks slot and student):
        --    its booking, else its waitlist entry
        SELECT booking_id INTO v_bid FROM ${prefix}booking
         WHERE tenant_id = p_tenant AND request_id = p_request LOCK IN SHARE MODE;
        IF v_bid IS NOT NULL THEN
            SET v_answer = ${prefix}booking_fact(p_tenant, v_bid, 'REPLAY');
        ELSEIF EXISTS (SELECT 1 FROM ${prefix}waiter WHERE tenant_id = p_tenant AND request_id = p_request) THEN
            SET v_answer = ${prefix}waiter_fact(p_tenant, p_request, 'WAITLISTED_REPLAY');
        END IF;
        IF v_answer IS NOT NULL THEN
            LEAVE main;
        END IF;

        -- 7. the student's own booking of this slot: live answers ALREADY, a dead hold is retired below
        SELECT booking_id, status = 'CONFIRMED' OR v_now < held_until INTO v_own_dead, v_live
          FROM ${prefix}booking FORCE INDEX (${prefix}booking_slot_ix)
         WHERE tenant_id = p_tenant AND slot_id = p_slot AND student_id = p_student
           AND status IN ('HELD', 'CONFIRMED') LIMIT 1 LOCK IN SHARE MODE;
        IF v_live THEN
            SET v_answer = ${prefix}booking_fact(p_tenant, v_own_dead, 'ALREADY');
            LEAVE main;
        END IF;

        -- 8. the student's live occupations overlapping his time in this slot; a hold that ran out blocks
        --    nothing. A plain count of his active ones there first (v_overlaps; a dead hold is an old row,
        --    which a plain read sees): none, and a locking count finds none committed since either, means
        --    no conflict; else the live ones are counted under share locks (a dead one stays unlocked),
        --    then listed when there are any
        SET v_lowest = v_start - INTERVAL v_longest MICROSECOND;
        SELECT COUNT(*) INTO v_overlaps
          FROM ${prefix}occupancy o FORCE INDEX (${prefix}occupancy_overlap_ix)
         WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = p_student
           AND o.active = TRUE AND o.starts_at < v_student_end AND o.ends_at > v_start AND o.starts_at > v_lowest;
        IF v_overlaps = 0 THEN
            SELECT COUNT(*) INTO v_n
              FROM ${prefix}occupancy o
             WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = p_student
               AND o.active = TRUE AND o.starts_at < v_student_end AND o.ends_at > v_start AND o.starts_at > v_lowest
               LOCK IN SHARE MODE;
        END IF;
        IF v_overlaps > 0 OR v_n > 0 THEN
            SELECT COUNT(*) INTO v_n
              FROM ${prefix}occupancy o
             WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = p_student
               AND o.active = TRUE AND o.starts_at < v_student_end AND o.ends_at > v_start AND o.starts_at > v_lowest
               AND NOT EXISTS (SELECT 1 FROM ${prefix}booking b
                                WHERE b.tenant_id = p_tenant AND b.booking_id = o.booking_id
                                  AND b.status = 'HELD' AND b.held_until <= v_now) LOCK IN SHARE MODE;
        END IF;
        IF v_n > 0 THEN
            SELECT JSON_ARRAYAGG(JSON_ARRAY('CONFLICT', o.booking_id, NULL, o.slot_id, NULL, NULL, NULL, NULL, NULL,
                                            NULL, o.resource_kind, o.resource_id, o.starts_at, o.ends_at, NULL,
                                            NULL, NULL, NULL, NULL, NULL)
                                 ORDER BY o.resource_kind, o.resource_id, o.starts_at)
              INTO v_conf
              FROM ${prefix}occupancy o
             WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = p_student
               AND o.active = TRUE AND o.starts_at < v_student_end AND o.ends_at > v_start AND o.starts_at > v_lowest
               AND NOT EXISTS (SELECT 1 FROM ${prefix}booking b
                                WHERE b.tenant_id = p_tenant AND b.booking_id = o.booking_id
                                  AND b.status = 'HELD' AND b.held_until <= v_now) LOCK IN SHARE MODE;
            LEAVE main;
        END IF;

        -- 9. the limits, over the student's live bookings: sessions not ended yet, then this slot's week
        IF v_max_upcoming > 0 THEN
            SELECT COUNT(*) INTO v_n
              FROM ${prefix}occupancy o
              WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = p_student
               AND o.active = TRUE AND o.starts_at > v_now - INTERVAL v_longest MICROSECOND
               AND o.ends_at > v_now
               AND NOT EXISTS (SELECT 1 FROM ${prefix}booking b
                                WHERE b.tenant_id = p_tenant AND b.booking_id = o.booking_id
                                  AND b.status = 'HELD' AND b.held_until <= v_now) LOCK IN SHARE MODE;
            IF v_n >= v_max_upcoming THEN
                SET v_answer = ${prefix}fact('LIMIT', NULL, NULL, v_max_upcoming, NULL, NULL, 'UPCOMING');
                LEAVE main;
            END IF;
        END IF;
        IF v_max_week > 0 AND v_week_start IS NOT NULL THEN
            SELECT COUNT(*) INTO v_n
              FROM ${prefix}occupancy o
              WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = p_student
               AND o.active = TRUE AND o.starts_at >= v_week_start AND o.starts_at < v_week_end
               AND NOT EXISTS (SELECT 1 FROM ${prefix}booking b
                                WHERE b.tenant_id = p_tenant AND b.booking_id = o.booking_id
                                  AND b.status = 'HELD' AND b.held_until <= v_now) LOCK IN SHARE MODE;
            IF v_n >= v_max_week THEN
                SET v_answer = ${prefix}fact('LIMIT', NULL, NULL, v_max_week, NULL, NULL, 'WEEKLY');
                LEAVE main;
            END IF;
        END IF;

        -- no waiting (hold_batch): dead holds to retire are left to a call of its own (here every
        -- overlapping active occupation left is a dead hold's: a live one answered CONFLICT above)
        IF p_no_wait AND (v_own_dead IS NOT NULL OR v_overlaps > 0) THEN
            SET o_tag = 'RETRY';
            LEAVE main;
        END IF;

        -- 10. retire the student's dead holds: his own of this slot, then those overlapping it (in the
        --     order they were taken, by occupation id; looked for only when step 8 saw active occupations
        --     of his there); each freed seat is offered to its slot's waitlist
        IF v_own_dead IS NOT NULL THEN
            CALL ${prefix}retire(p_tenant, ${prefix}terms(p_hold_micros, p_longest_micros, p_max_upcoming, p_max_week,
                                                           p_waitlist_cutoff_micros, p_credit_policy), v_own_dead, v_now, v_events, v_done);
        END IF;
        dead_holds: WHILE v_overlaps > 0 DO
            SET v_bid = NULL;
            SELECT o.id, b.booking_id INTO v_oid, v_bid
              FROM ${prefix}occupancy o FORCE INDEX (${prefix}occupancy_overlap_ix)
              STRAIGHT_JOIN ${prefix}booking b FORCE INDEX (PRIMARY)
                ON b.tenant_id = o.tenant_id AND b.booking_id = o.booking_id
             WHERE o.tenant_id = p_tenant AND o.resource_kind = 'STUDENT' AND o.resource_id = p_student
               AND o.active = TRUE AND o.starts_at < v_student_end AND o.ends_at > v_start AND o.starts_at > v_lowest
               AND o.id > v_oid AND b.status = 'HELD' AND b.held_until <= v_now
               AND b.booking_id <> COALESCE(v_own_dead, '')
             ORDER BY o.id LIMIT 1;
            IF v_bid IS NULL THEN
                LEAVE dead_holds;
            END IF;
            CALL ${prefix}retire(p_tenant, ${prefix}terms(p_hold_micros, p_longest_micros, p_max_upcoming, p_max_week,
                                                           p_waitlist_cutoff_micros, p_credit_policy), v_bid, v_now, v_events, v_done);
        END WHILE dead_holds;

        -- 10b. a slot with a cost: a package of the student that can pay it, for a seat and a waitlist
        --      place alike; locked FOR UPDATE when it pays now (AT_BOOKING), before any seat is locked,
        --      else in share mode (only required; check_in draws)
        IF v_cost > 0 THEN
            CALL ${prefix}find_payer(p_tenant, p_student, p_slot, IF(v_policy = 'AT_BOOKING', 1, 0), v_payer);
            IF v_payer IS NULL THEN
                CALL ${prefix}refund_dead_holds(p_tenant, p_student, v_now, v_refunded);
                IF v_refunded THEN
                    CALL ${prefix}find_payer(p_tenant, p_student, p_slot, IF(v_policy = 'AT_BOOKING', 1, 0), v_payer);
                END IF;
            END IF;
            IF v_payer IS NULL THEN
                SET v_answer = ${prefix}fact('INSUFFICIENT_CREDITS', NULL, p_slot, v_cost, NULL, NULL, NULL);
                LEAVE main;
            END IF;
        END IF;

        -- 11. the claim: the first free seat, else (only while nobody waits
        --     for the slot, asked once a free seat is missing) the oldest ran-out hold, skipping seats other
        --     claims have locked; then once more waiting for them
        claim: WHILE v_taken = 0 AND v_round < 8 DO
            SET v_round = v_round + 1, v_skip = 1;
            attempt: LOOP
                SET v_seq = NULL, v_old = NULL;
                IF v_skip = 1 THEN
                    SELECT seq INTO v_seq FROM ${prefix}slot_seat FORCE INDEX (${prefix}slot_seat_claim_ix)
                     WHERE tenant_id = p_tenant AND slot_id = p_slot AND status = 'FREE'
                     ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED;
                ELSE
                    SELECT seq INTO v_seq FROM ${prefix}slot_seat FORCE INDEX (${prefix}slot_seat_claim_ix)
                     WHERE tenant_id = p_tenant AND slot_id = p_slot AND status = 'FREE'
                     ORDER BY seq LIMIT 1 FOR UPDATE;
                END IF;
                IF v_seq IS NOT NULL THEN
                    UPDATE ${prefix}slot_seat
                       SET status = p_status, booking_id = p_booking, student_id = p_student, held_until = v_held_until
                     WHERE tenant_id = p_tenant AND slot_id = p_slot AND seq = v_seq AND status = 'FREE';
                    IF ROW_COUNT() = 1 THEN
                        SET v_taken = 1;
                    END IF;
                    LEAVE attempt;
                END IF;
                -- no waiting (hold_batch): no unlocked free seat is left to a call of its own
                IF p_no_wait THEN
                    SET o_tag = 'RETRY';
                    LEAVE main;
                END IF;
                IF v_waiting IS NULL THEN
                    SET v_waiting = EXISTS (SELECT 1 FROM ${prefix}waiter FORCE INDEX (${prefix}waiter_slot_ix)
                                             WHERE tenant_id = p_tenant AND slot_id = p_slot AND status = 'WAITING');
                END IF;
                IF v_waiting = 0 THEN
                    IF v_skip = 1 THEN
                        SELECT seq, booking_id INTO v_seq, v_old FROM ${prefix}slot_seat FORCE INDEX (${prefix}slot_seat_held_ix)
                         WHERE tenant_id = p_tenant AND slot_id = p_slot AND status = 'HELD' AND held_until <= v_now
                         ORDER BY held_until LIMIT 1 FOR UPDATE SKIP LOCKED;
                    ELSE
                        SELECT seq, booking_id INTO v_seq, v_old FROM ${prefix}slot_seat FORCE INDEX (${prefix}slot_seat_held_ix)
                         WHERE tenant_id = p_tenant AND slot_id = p_slot AND status = 'HELD' AND held_until <= v_now
                         ORDER BY held_until LIMIT 1 FOR UPDATE;
                    END IF;
                    IF v_seq IS NOT NULL THEN
                        UPDATE ${prefix}slot_seat
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
                SET v_answer = ${prefix}fact('FULL', NULL, NULL, NULL, NULL, NULL, NULL);
                LEAVE main;
            END IF;
            SELECT status INTO v_slot_status FROM ${prefix}slot WHERE tenant_id = p_tenant AND slot_id = p_slot FOR UPDATE;
            IF v_slot_status <> 'OPEN' THEN
                SET v_answer = ${prefix}fact('NOT_OPEN', NULL, p_slot, NULL, v_slot_status, NULL, NULL);
                LEAVE main;
            END IF;
            SET v_seq = NULL;
            SELECT seq INTO v_seq FROM ${prefix}slot_seat FORCE INDEX (${prefix}slot_seat_claim_ix)
             WHERE tenant_id = p_tenant AND slot_id = p_slot AND status = 'FREE'
             ORDER BY seq LIMIT 1 FOR UPDATE;
            IF v_seq IS NOT NULL THEN
                UPDATE ${prefix}slot_seat
                   SET status = p_status, booking_id = p_booking, student_id = p_student, held_until = v_held_until
                 WHERE tenant_id = p_tenant AND slot_id = p_slot AND seq = v_seq AND status = 'FREE';
                IF ROW_COUNT() = 1 THEN
                    SET v_taken = 1;
                END IF;
            END IF;
            IF v_taken = 0 THEN
                SET v_bid = NULL;
                SELECT request_id INTO v_bid FROM ${prefix}waiter FORCE INDEX (${prefix}waiter_student_ix)
                 WHERE tenant_id = p_tenant AND slot_id = p_slot AND student_id = p_student AND status = 'WAITING'
                 LIMIT 1 LOCK IN SHARE MODE;
                IF v_bid IS NOT NULL THEN
                    SET v_answer = ${prefix}waiter_fact(p_tenant, v_bid, 'WAITLISTED_REPLAY');
                    LEAVE main;
                END IF;
                INSERT INTO ${prefix}waiter (tenant_id, request_id, slot_id, student_id, booking_id, status, reason,
                                             joined_at, updated_at)
                    VALUES (p_tenant, p_request, p_slot, p_student, p_booking, 'WAITING', NULL, v_now, v_now);
                SET v_answer = ${prefix}waiter_fact(p_tenant, p_request, 'WAITLISTED');
                LEAVE main;
            END IF;
        END IF;
        IF v_taken = 0 THEN
            SIGNAL SQLSTATE '40001' SET MESSAGE_TEXT = 'hold: the seat rows kept changing under the claim';
        END IF;
        IF v_displaced IS NOT NULL THEN
            CALL ${prefix}expire_booking(p_tenant, v_displaced, v_now, v_events);
        END IF;

        -- 13. the booking and the student's occupation; the answer and its event are the booking as written
        INSERT INTO ${prefix}booking (tenant_id, booking_id, request_id, slot_id, student_id, seat, status, held_until,
                                      created_at, updated_at)
            VALUES (p_tenant, p_booking, p_request, p_slot, p_student, v_seq, p_status, v_held_until, v_now, v_now);
        INSERT INTO ${prefix}occupancy (tenant_id, resource_kind, resource_id, starts_at, ends_at, slot_id, booking_id, active)
            VALUES (p_tenant, 'STUDENT', p_student, v_start, v_student_end, p_slot, p_booking, TRUE);
        IF v_cost > 0 AND v_policy = 'AT_BOOKING' THEN
            CALL ${prefix}charge(p_tenant, p_booking, v_payer, v_cost, 'DRAW', v_now);
            SET v_answer = ${prefix}booking_fact(p_tenant, p_booking, 'HELD');
        ELSEIF p_plain AND v_events IS NULL THEN
            -- unpaid, nothing else happened: the caller answers the booking as just written (no package,
            -- no credits, attendance NONE) and its event itself, without JSON (o_rows stays NULL)
            SET o_tag = 'HELD', o_seat = v_seq, o_held = v_held_until, o_at = v_now;
            LEAVE main;
        ELSE
            -- unpaid: the booking as just written (no package, no credits, attendance NONE)
            SET v_answer = JSON_ARRAY('HELD', p_booking, p_request, p_slot, p_student, v_seq, p_status, v_held_until,
                                      v_now, v_now, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 'NONE');
        END IF;
        SET v_events = ${prefix}noted(v_events,
                                      JSON_SET(v_answer, '$[0]', IF(p_status = 'CONFIRMED', 'EV_CONFIRMED', 'EV_HELD')));
    END main;
    IF o_tag IS NULL THEN
        SET o_rows = ${prefix}answer_rows(v_answer, v_conf, v_events);
    END IF;
END//

-- hold_do in its own READ COMMITTED transaction. Answers HELD (plus EV_HELD or EV_CONFIRMED), REPLAY,
-- WAITLISTED, WAITLISTED_REPLAY, ALREADY, CONFLICT rows, LIMIT, FULL, NOT_OPEN_YET, BOOKING_CLOSED,
-- NOT_OPEN, NOT_FOUND or INSUFFICIENT_CREDITS, after the events of what it did on the way.
-- Mirrors the rules kernel: Rules.hold (org.slotbook.core.internal.rules).
CREATE OR REPLACE PROCEDURE ${prefix}hold(
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
    p_waitlist_cutoff_micros BIGINT,
    p_credit_policy VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin)
MODIFIES SQL DATA
BEGIN
    DECLARE v_rows LONGTEXT;
    DECLARE v_tag VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_seat INT;
    DECLARE v_held, v_at DATETIME(6);
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    START TRANSACTION;
    CALL ${prefix}fence_check(p_tenant);
    CALL ${prefix}hold_do(p_tenant, p_hold_micros, p_longest_micros, p_max_upcoming, p_max_week,
                          p_waitlist_cutoff_micros, p_credit_policy, p_booking, p_request, p_slot, p_student, p_status, p_now, p_gate_held, p_waitlist, TRUE,
                          FALSE, v_rows, v_tag, v_seat, v_held, v_at);
    IF v_tag = 'HELD' THEN
        INSERT INTO ${prefix}event (tenant_id, kind, booking_id, request_id, slot_id, student_id, seat, status,
                                    held_until, created_at, updated_at, written_at)
            VALUES (p_tenant, p_status, p_booking, p_request, p_slot, p_student, v_seat, p_status, v_held, v_at, v_at,
                    v_at);
    ELSEIF v_rows LIKE '%"EV\\_%' THEN
        CALL ${prefix}outbox_write(p_tenant, v_rows);
    END IF;
    COMMIT;
    -- the two plain answers as rows of their own (the 20 columns of emit), the others through emit
    IF v_tag = 'HELD' THEN
        SELECT 'HELD' AS tag, p_booking AS booking_id, p_request AS request_id, p_slot AS slot_id,
               p_student AS student_id, v_seat AS seat, p_status AS status, v_held AS held_until, v_at AS created_at,
               v_at AS updated_at, NULL AS res_kind, NULL AS res_id, NULL AS starts_at, NULL AS ends_at,
               NULL AS coach_id, NULL AS room_id, NULL AS capacity, NULL AS ref_id, 0 AS amount, 'NONE' AS note
        UNION ALL
        SELECT IF(p_status = 'CONFIRMED', 'EV_CONFIRMED', 'EV_HELD'), p_booking, p_request, p_slot, p_student, v_seat,
               p_status, v_held, v_at, v_at, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 'NONE';
    ELSEIF v_tag = 'FULL' THEN
        SELECT 'FULL' AS tag, NULL AS booking_id, NULL AS request_id, NULL AS slot_id, NULL AS student_id,
               NULL AS seat, NULL AS status, NULL AS held_until, NULL AS created_at, NULL AS updated_at,
               NULL AS res_kind, NULL AS res_id, NULL AS starts_at, NULL AS ends_at, NULL AS coach_id,
               NULL AS room_id, NULL AS capacity, NULL AS ref_id, NULL AS amount, NULL AS note;
    ELSE
        CALL ${prefix}emit(v_rows, FALSE);
    END IF;
END//


-- Mirrors the rules kernel: Rules.confirm (org.slotbook.core.internal.rules).
CREATE OR REPLACE PROCEDURE ${prefix}confirm(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_now DATETIME(6),
    p_hold_micros BIGINT,
    p_longest_micros BIGINT,
    p_max_upcoming INT,
    p_max_week INT,
    p_waitlist_cutoff_micros BIGINT,
    p_credit_policy VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin)
MODIFIES SQL DATA
BEGIN
    DECLARE v_now DATETIME(6) DEFAULT COALESCE(p_now, UTC_TIMESTAMP(6));
    DECLARE v_slot, v_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_held DATETIME(6);
    DECLARE v_seat INT;
    DECLARE v_n INT DEFAULT 0;
    DECLARE v_answer, v_events LONGTEXT;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    -- bad input is refused before anything is written
    IF p_credit_policy IS NOT NULL AND p_credit_policy NOT IN ('AT_BOOKING', 'AT_CHECK_IN') THEN
        SIGNAL SQLSTATE '22023' SET MESSAGE_TEXT = 'confirm: p_credit_policy must be AT_BOOKING, AT_CHECK_IN or NULL';
    END IF;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    START TRANSACTION;
    CALL ${prefix}fence_check(p_tenant);
    main: BEGIN
        -- find the booking; a hold that ran out is retired (slot row, then seat row: its seat goes to
        -- the waitlist), any other is read again under its seat row's lock (every change of a booking
        -- goes through its seat row first, so nothing changes it from here on)
        SELECT slot_id, seat, student_id, status, held_until INTO v_slot, v_seat, v_student, v_status, v_held
          FROM ${prefix}booking WHERE tenant_id = p_tenant AND booking_id = p_booking;
        IF v_slot IS NULL OR v_student <> p_student THEN
            SET v_answer = ${prefix}fact('NOT_FOUND', NULL, NULL, NULL, NULL, NULL, NULL);
            LEAVE main;
        END IF;
        IF v_status = 'HELD' AND v_held <= v_now THEN
            CALL ${prefix}retire(p_tenant, ${prefix}terms(p_hold_micros, p_longest_micros, p_max_upcoming, p_max_week,
                                                          p_waitlist_cutoff_micros, p_credit_policy),
                                 p_booking, v_now, v_events, v_n);
        ELSE
            SELECT COUNT(*) INTO v_n FROM ${prefix}slot_seat
             WHERE tenant_id = p_tenant AND slot_id = v_slot AND seq = v_seat FOR UPDATE;
        END IF;
        SELECT status, held_until INTO v_status, v_held
          FROM ${prefix}booking WHERE tenant_id = p_tenant AND booking_id = p_booking LOCK IN SHARE MODE;
        IF v_status = 'CANCELLED' THEN
            SET v_answer = ${prefix}fact('ALREADY_CANCELLED', NULL, NULL, NULL, NULL, NULL, NULL);
            LEAVE main;
        END IF;
        IF v_status = 'HELD' THEN
            IF v_now >= v_held THEN
                SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'confirm: ledger rows disagree, a ran-out hold does not own its seat';
            END IF;
            UPDATE ${prefix}slot_seat SET status = 'CONFIRMED'
             WHERE tenant_id = p_tenant AND slot_id = v_slot AND seq = v_seat AND booking_id = p_booking
               AND status = 'HELD' AND held_until > v_now;
            IF ROW_COUNT() <> 1 THEN
                SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'confirm: ledger rows disagree, the HELD booking does not own its seat';
            END IF;
            UPDATE ${prefix}booking SET status = 'CONFIRMED', updated_at = v_now
             WHERE tenant_id = p_tenant AND booking_id = p_booking AND status = 'HELD';
            IF ROW_COUNT() <> 1 THEN
                SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'confirm: ledger rows disagree, the seat changed but the booking row did not';
            END IF;
            SET v_events = ${prefix}noted(v_events, ${prefix}booking_fact(p_tenant, p_booking, 'EV_CONFIRMED'));
        END IF;
        -- the booking: CONFIRMED (now or before), or HOLD_EXPIRED
        SET v_answer = ${prefix}booking_fact(p_tenant, p_booking, IF(v_status = 'EXPIRED', 'HOLD_EXPIRED', 'CONFIRMED'));
    END main;
    CALL ${prefix}outbox_write(p_tenant, v_events);
    COMMIT;
    CALL ${prefix}emit(${prefix}answer_rows(v_answer, NULL, v_events), FALSE);
END//

-- Mirrors the rules kernel: Rules.cancel (org.slotbook.core.internal.rules).
CREATE OR REPLACE PROCEDURE ${prefix}cancel(
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
    p_waitlist_cutoff_micros BIGINT,
    p_credit_policy VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin)
MODIFIES SQL DATA
BEGIN
    DECLARE v_now DATETIME(6) DEFAULT COALESCE(p_now, UTC_TIMESTAMP(6));
    DECLARE v_terms LONGTEXT DEFAULT ${prefix}terms(p_hold_micros, p_longest_micros, p_max_upcoming, p_max_week,
                                                    p_waitlist_cutoff_micros, p_credit_policy);
    DECLARE v_slot, v_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_status, v_attendance VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_policy, v_slot_policy VARCHAR(8) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_slot_cutoff INT;
    DECLARE v_held, v_start, v_cutoff DATETIME(6);
    DECLARE v_seat INT;
    DECLARE v_late INT DEFAULT 0;
    DECLARE v_n INT DEFAULT 0;
    DECLARE v_answer, v_events LONGTEXT;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    -- bad input is refused before anything is written
    IF p_credit_policy IS NOT NULL AND p_credit_policy NOT IN ('AT_BOOKING', 'AT_CHECK_IN') THEN
        SIGNAL SQLSTATE '22023' SET MESSAGE_TEXT = 'cancel: p_credit_policy must be AT_BOOKING, AT_CHECK_IN or NULL';
    END IF;
    IF p_cancel_policy IS NOT NULL AND p_cancel_policy NOT IN ('FREE', 'REFUSE', 'LATE') THEN
        SIGNAL SQLSTATE '22023' SET MESSAGE_TEXT = 'cancel: p_cancel_policy must be FREE, REFUSE, LATE or NULL';
    END IF;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    START TRANSACTION;
    CALL ${prefix}fence_check(p_tenant);
    main: BEGIN
        -- find the booking (p_student NULL: staff, any booking of the tenant)
        SELECT slot_id, seat, student_id, status, held_until INTO v_slot, v_seat, v_student, v_status, v_held
          FROM ${prefix}booking WHERE tenant_id = p_tenant AND booking_id = p_booking;
        IF v_slot IS NULL OR (p_student IS NOT NULL AND v_student <> p_student) THEN
            SET v_answer = ${prefix}fact('NOT_FOUND', NULL, NULL, NULL, NULL, NULL, NULL);
            LEAVE main;
        END IF;
        IF v_status = 'HELD' AND v_held <= v_now THEN
            -- the hold already ran out: nothing to cancel, but retire it now (its seat goes to the waitlist)
            CALL ${prefix}retire(p_tenant, v_terms, p_booking, v_now, v_events, v_n);
        ELSEIF v_status IN ('HELD', 'CONFIRMED') THEN
            -- slot row, then seat row, then the booking again
            SELECT starts_at, cancel_policy, cancel_cutoff_seconds INTO v_start, v_slot_policy, v_slot_cutoff
              FROM ${prefix}slot WHERE tenant_id = p_tenant AND slot_id = v_slot FOR UPDATE;
            SELECT COUNT(*) INTO v_n FROM ${prefix}slot_seat
             WHERE tenant_id = p_tenant AND slot_id = v_slot AND seq = v_seat FOR UPDATE;
        END IF;
        SELECT status, attendance INTO v_status, v_attendance
          FROM ${prefix}booking WHERE tenant_id = p_tenant AND booking_id = p_booking LOCK IN SHARE MODE;
        IF v_status NOT IN ('HELD', 'CONFIRMED') OR v_start IS NULL THEN
            SET v_answer = ${prefix}booking_fact(p_tenant, p_booking, 'ALREADY_CANCELLED');
            LEAVE main;
        END IF;
        -- the student came (or was marked absent): only staff may still cancel
        IF p_student IS NOT NULL AND v_attendance <> 'NONE' THEN
            SET v_answer = ${prefix}fact('TOO_LATE', p_booking, NULL, NULL, NULL, v_start, NULL);
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
        -- a hold never confirmed is no booking yet: never late, never charged
        SET v_late = IF(v_status = 'CONFIRMED' AND v_cutoff IS NOT NULL AND v_now >= v_cutoff, 1, 0);
        IF v_late = 1 AND v_policy = 'REFUSE' AND p_student IS NOT NULL THEN
            SET v_answer = ${prefix}fact('TOO_LATE', NULL, NULL, NULL, NULL, v_cutoff, NULL);
            LEAVE main;
        END IF;
        -- the credits: a late cancel by the student keeps them (AT_BOOKING) or forfeits the cost
        -- (AT_CHECK_IN); any other cancel refunds them
        IF v_late = 1 AND p_student IS NOT NULL THEN
            CALL ${prefix}forfeit(p_tenant, p_booking, p_credit_policy, v_now);
        ELSE
            CALL ${prefix}refund(p_tenant, p_booking, v_now);
        END IF;
        UPDATE ${prefix}slot_seat SET status = 'FREE', booking_id = NULL, student_id = NULL, held_until = NULL
         WHERE tenant_id = p_tenant AND slot_id = v_slot AND seq = v_seat AND booking_id = p_booking
           AND status IN ('HELD', 'CONFIRMED');
        IF ROW_COUNT() <> 1 THEN
            SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'cancel: ledger rows disagree, the active booking does not own its seat';
        END IF;
        UPDATE ${prefix}booking SET status = 'CANCELLED', updated_at = v_now, late_cancel = (v_late = 1)
         WHERE tenant_id = p_tenant AND booking_id = p_booking AND status IN ('HELD', 'CONFIRMED');
        IF ROW_COUNT() <> 1 THEN
            SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'cancel: ledger rows disagree, the seat changed but the booking row did not';
        END IF;
        UPDATE ${prefix}occupancy SET active = FALSE
         WHERE tenant_id = p_tenant AND booking_id = p_booking AND active = TRUE;
        -- the event is the booking as cancelled; the answer too, tagged CANCELLED (res_kind LATE when late)
        SET v_answer = ${prefix}booking_fact(p_tenant, p_booking, IF(v_late = 1, 'EV_LATE_CANCELLED', 'EV_CANCELLED'));
        SET v_events = ${prefix}noted(v_events, v_answer),
            v_answer = JSON_SET(v_answer, '$[0]', 'CANCELLED', '$[10]', IF(v_late = 1, 'LATE', NULL));
        CALL ${prefix}promote(p_tenant, v_terms, v_slot, v_now, v_events);
    END main;
    CALL ${prefix}outbox_write(p_tenant, v_events);
    COMMIT;
    CALL ${prefix}emit(${prefix}answer_rows(v_answer, NULL, v_events), FALSE);
END//

-- Calls a slot off inside the caller's transaction (cancel_slot, cancel_series): SLOT_CANCELLED (the
-- slot) plus one EV_CANCELLED per booking it cancelled, by seat, each refunded first; ALREADY_CANCELLED;
-- NOT_FOUND. Nobody is promoted; the waitlist stays as it is. o_rows: the rows as a JSON list.
-- Mirrors the rules kernel: Endings.cancelSlot (org.slotbook.core.internal.rules).
CREATE OR REPLACE PROCEDURE ${prefix}cancel_slot_do(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_now DATETIME(6),
    OUT o_rows LONGTEXT)
MODIFIES SQL DATA
BEGIN
    DECLARE v_now DATETIME(6) DEFAULT COALESCE(p_now, UTC_TIMESTAMP(6));
    DECLARE v_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_n INT DEFAULT 0;
    DECLARE v_i INT DEFAULT 0;
    DECLARE v_ids, v_paid, v_answer, v_events LONGTEXT;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;

    main: BEGIN
        SELECT status INTO v_status FROM ${prefix}slot WHERE tenant_id = p_tenant AND slot_id = p_slot;
        IF v_status IS NULL THEN
            SET v_answer = ${prefix}fact('NOT_FOUND', NULL, NULL, NULL, NULL, NULL, NULL);
            LEAVE main;
        END IF;
        -- not OPEN, or a concurrent cancel was first: ALREADY_CANCELLED
        IF v_status = 'OPEN' THEN
            UPDATE ${prefix}slot SET status = 'CANCELLED'
             WHERE tenant_id = p_tenant AND slot_id = p_slot AND status = 'OPEN';
            SET v_n = ROW_COUNT();
        END IF;
        IF v_n = 0 THEN
            SET v_answer = ${prefix}fact('ALREADY_CANCELLED', NULL, NULL, NULL, NULL, NULL, NULL);
            LEAVE main;
        END IF;
        -- close every seat, free ones included: a claim in flight holds its seat's lock, so this
        -- waits for it, and no claim can take a seat of this slot afterwards
        UPDATE ${prefix}slot_seat SET status = 'CLOSED', booking_id = NULL, student_id = NULL, held_until = NULL
         WHERE tenant_id = p_tenant AND slot_id = p_slot AND status <> 'CLOSED';
        SET STATEMENT group_concat_max_len = 4294967295 FOR
        SELECT COUNT(*), JSON_ARRAYAGG(booking_id) INTO v_n, v_ids
          FROM ${prefix}booking
         WHERE tenant_id = p_tenant AND slot_id = p_slot AND status IN ('HELD', 'CONFIRMED') LOCK IN SHARE MODE;
        -- the credits of every paid one back (its package locked after the seats)
        SET STATEMENT group_concat_max_len = 4294967295 FOR
        SELECT JSON_ARRAYAGG(booking_id ORDER BY seat) INTO v_paid
          FROM ${prefix}booking
         WHERE tenant_id = p_tenant AND slot_id = p_slot AND status IN ('HELD', 'CONFIRMED') AND credits > 0
           LOCK IN SHARE MODE;
        WHILE v_paid IS NOT NULL AND v_i < JSON_LENGTH(v_paid) DO
            CALL ${prefix}refund(p_tenant, JSON_UNQUOTE(JSON_EXTRACT(v_paid, CONCAT('$[', v_i, ']'))), v_now);
            SET v_i = v_i + 1;
        END WHILE;
        UPDATE ${prefix}booking SET status = 'CANCELLED', updated_at = v_now
         WHERE tenant_id = p_tenant AND slot_id = p_slot AND status IN ('HELD', 'CONFIRMED');
        IF ROW_COUNT() <> v_n THEN
            SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'cancel_slot: ledger rows disagree, the active bookings changed under the cancel';
        END IF;
        UPDATE ${prefix}occupancy SET active = FALSE WHERE tenant_id = p_tenant AND slot_id = p_slot AND active = TRUE;
        SET v_answer = ${prefix}slot_fact(p_tenant, p_slot, 'SLOT_CANCELLED');
        -- the events, by seat (the bookings are CANCELLED from here on and nothing changes them)
        SET STATEMENT group_concat_max_len = 4294967295 FOR
        SELECT JSON_ARRAYAGG(JSON_ARRAY('EV_CANCELLED', b.booking_id, b.request_id, b.slot_id, b.student_id, b.seat,
                                        b.status, b.held_until, b.created_at, b.updated_at, NULL, NULL, NULL, NULL,
                                        NULL, NULL, NULL, b.package_id, b.credits, b.attendance) ORDER BY b.seat)
          INTO v_events
          FROM JSON_TABLE(v_ids, '$[*]' COLUMNS (bid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$')) j
          STRAIGHT_JOIN ${prefix}booking b ON b.tenant_id = p_tenant AND b.booking_id = j.bid;
    END main;
    SET o_rows = ${prefix}answer_rows(v_answer, NULL, v_events);
END//

-- cancel_slot_do in its own READ COMMITTED transaction.
-- Mirrors the rules kernel: Rules.cancelSlot (org.slotbook.core.internal.rules).
CREATE OR REPLACE PROCEDURE ${prefix}cancel_slot(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_now DATETIME(6))
MODIFIES SQL DATA
BEGIN
    DECLARE v_rows LONGTEXT;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    START TRANSACTION;
    CALL ${prefix}fence_check(p_tenant);
    CALL ${prefix}cancel_slot_do(p_tenant, p_slot, p_now, v_rows);
    CALL ${prefix}outbox_write(p_tenant, v_rows);
    COMMIT;
    CALL ${prefix}emit(v_rows, FALSE);
END//

-- Mirrors the rules kernel: Rules.expireDue (org.slotbook.core.internal.rules).
CREATE OR REPLACE PROCEDURE ${prefix}expire_due(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_now DATETIME(6),
    p_limit INT,
    p_hold_micros BIGINT,
    p_longest_micros BIGINT,
    p_max_upcoming INT,
    p_max_week INT,
    p_waitlist_cutoff_micros BIGINT,
    p_credit_policy VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_marks_no_shows BOOLEAN,
    p_check_in_closes_micros BIGINT)
MODIFIES SQL DATA
BEGIN
    DECLARE v_now DATETIME(6) DEFAULT COALESCE(p_now, UTC_TIMESTAMP(6));
    DECLARE v_terms LONGTEXT DEFAULT ${prefix}terms(p_hold_micros, p_longest_micros, p_max_upcoming, p_max_week,
                                                    p_waitlist_cutoff_micros, p_credit_policy);
    DECLARE v_n INT DEFAULT 0;
    DECLARE v_i INT DEFAULT 0;
    DECLARE v_done INT DEFAULT 0;
    DECLARE v_expired INT DEFAULT 0;
    DECLARE v_left INT DEFAULT 0;
    DECLARE v_seat INT;
    DECLARE v_st VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_att VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_sid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_shows, v_cand, v_slots, v_events LONGTEXT;
    DECLARE v_bid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    IF p_limit IS NULL OR p_limit < 1 THEN
        SIGNAL SQLSTATE '22003' SET MESSAGE_TEXT = 'expire_due: p_limit must be positive';
    END IF;
    -- bad input is refused before anything is written
    IF p_credit_policy IS NOT NULL AND p_credit_policy NOT IN ('AT_BOOKING', 'AT_CHECK_IN') THEN
        SIGNAL SQLSTATE '22023' SET MESSAGE_TEXT = 'expire_due: p_credit_policy must be AT_BOOKING, AT_CHECK_IN or NULL';
    END IF;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    START TRANSACTION;
    CALL ${prefix}fence_check(p_tenant);
    main: BEGIN
      expiry: BEGIN
        -- the due holds, oldest deadline first, without locks
        SET STATEMENT group_concat_max_len = 4294967295 FOR
        SELECT JSON_ARRAYAGG(JSON_ARRAY(d.booking_id, d.slot_id) ORDER BY d.held_until, d.booking_id) INTO v_cand
          FROM (SELECT booking_id, slot_id, held_until FROM ${prefix}booking
                 WHERE tenant_id = p_tenant AND status = 'HELD' AND held_until <= v_now
                 ORDER BY held_until, booking_id LIMIT p_limit) d;
        IF v_cand IS NULL THEN
            LEAVE expiry;
        END IF;
        -- their slots' rows, in key order (every seat-freeing call locks the slot row before the seat)
        SELECT JSON_ARRAYAGG(DISTINCT j.sid ORDER BY j.sid) INTO v_slots
          FROM JSON_TABLE(v_cand, '$[*]' COLUMNS (sid VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]')) j;
        WHILE v_i < JSON_LENGTH(v_slots) DO
            SELECT COUNT(*) INTO v_n FROM ${prefix}slot
             WHERE tenant_id = p_tenant AND slot_id = JSON_UNQUOTE(JSON_EXTRACT(v_slots, CONCAT('$[', v_i, ']')))
               FOR UPDATE;
            SET v_i = v_i + 1;
        END WHILE;
        SET v_i = 0;
        -- each: the seat row decides whether it is still the due booking's (another sweeper or a claim
        -- taking the seat over may have been first); then its seat goes to the waitlist
        WHILE v_i < JSON_LENGTH(v_cand) DO
            SET v_bid = JSON_UNQUOTE(JSON_EXTRACT(v_cand, CONCAT('$[', v_i, '][0]')));
            CALL ${prefix}retire(p_tenant, v_terms, v_bid, v_now, v_events, v_done);
            SET v_expired = v_expired + v_done;
            SET v_i = v_i + 1;
        END WHILE;
      END expiry;
        -- the no-shows: CONFIRMED bookings not checked in whose check-in closed, with what is left of the
        -- limit; each decided under its slot row's and seat row's locks (sweepers, check-ins and cancels
        -- agree there), then re-read
        SET v_left = p_limit - v_expired;
        IF NOT COALESCE(p_marks_no_shows, FALSE) OR v_left <= 0 THEN
            LEAVE main;
        END IF;
        SET STATEMENT group_concat_max_len = 4294967295 FOR
        SELECT JSON_ARRAYAGG(JSON_ARRAY(d.booking_id, d.slot_id, d.seat) ORDER BY d.ends_at, d.booking_id) INTO v_shows
          FROM (SELECT b.booking_id, b.slot_id, b.seat, s.ends_at
                  FROM ${prefix}booking b FORCE INDEX (${prefix}booking_unattended_ix)
                  JOIN ${prefix}slot s ON s.tenant_id = b.tenant_id AND s.slot_id = b.slot_id
                 WHERE b.tenant_id = p_tenant AND b.status = 'CONFIRMED' AND b.attendance = 'NONE'
                   AND s.ends_at + INTERVAL COALESCE(p_check_in_closes_micros, 0) MICROSECOND <= v_now
                 ORDER BY s.ends_at, b.booking_id LIMIT v_left) d;
        SET v_i = 0;
        WHILE v_shows IS NOT NULL AND v_i < JSON_LENGTH(v_shows) DO
            SET v_bid = JSON_UNQUOTE(JSON_EXTRACT(v_shows, CONCAT('$[', v_i, '][0]'))),
                v_sid = JSON_UNQUOTE(JSON_EXTRACT(v_shows, CONCAT('$[', v_i, '][1]'))),
                v_seat = JSON_EXTRACT(v_shows, CONCAT('$[', v_i, '][2]')),
                v_st = NULL, v_att = NULL;
            SELECT COUNT(*) INTO v_n FROM ${prefix}slot WHERE tenant_id = p_tenant AND slot_id = v_sid FOR UPDATE;
            SELECT COUNT(*) INTO v_n FROM ${prefix}slot_seat
             WHERE tenant_id = p_tenant AND slot_id = v_sid AND seq = v_seat FOR UPDATE;
            SELECT status, attendance INTO v_st, v_att FROM ${prefix}booking
             WHERE tenant_id = p_tenant AND booking_id = v_bid FOR UPDATE;
            IF v_st = 'CONFIRMED' AND v_att = 'NONE' THEN
                CALL ${prefix}forfeit(p_tenant, v_bid, p_credit_policy, v_now);
                UPDATE ${prefix}booking SET attendance = 'NO_SHOW', updated_at = v_now
                 WHERE tenant_id = p_tenant AND booking_id = v_bid;
                SET v_events = ${prefix}noted(v_events, ${prefix}booking_fact(p_tenant, v_bid, 'EV_NO_SHOW'));
            END IF;
            SET v_i = v_i + 1;
        END WHILE;
    END main;
    CALL ${prefix}outbox_write(p_tenant, v_events);
    COMMIT;
    CALL ${prefix}emit(${prefix}answer_rows(NULL, NULL, v_events), FALSE);
END//

-- Mirrors the rules kernel: Rules.leaveWaitlist (org.slotbook.core.internal.rules).
CREATE OR REPLACE PROCEDURE ${prefix}leave_waitlist(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_request VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_now DATETIME(6))
MODIFIES SQL DATA
BEGIN
    DECLARE v_now DATETIME(6) DEFAULT COALESCE(p_now, UTC_TIMESTAMP(6));
    DECLARE v_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_answer LONGTEXT;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    START TRANSACTION;
    CALL ${prefix}fence_check(p_tenant);
    SELECT student_id, status INTO v_student, v_status
      FROM ${prefix}waiter WHERE tenant_id = p_tenant AND request_id = p_request FOR UPDATE;
    IF v_student IS NULL OR v_student <> p_student THEN
        SET v_answer = ${prefix}fact('NOT_FOUND', NULL, NULL, NULL, NULL, NULL, NULL);
    ELSE
        IF v_status = 'WAITING' THEN
            UPDATE ${prefix}waiter SET status = 'LEFT', updated_at = v_now
             WHERE tenant_id = p_tenant AND request_id = p_request;
        END IF;
        SET v_answer = ${prefix}waiter_fact(p_tenant, p_request, IF(v_status = 'WAITING', 'LEFT', 'NOT_WAITING'));
    END IF;
    COMMIT;
    CALL ${prefix}emit(${prefix}answer_rows(v_answer, NULL, NULL), FALSE);
END//

-- ---------------------------------------------------------------------------------------------
-- Lessons: packages, attendance, weekly series.
-- ---------------------------------------------------------------------------------------------

-- Grants a package: GRANTED with the package (remaining = p_credits) and its GRANT journal entry, or
-- PACKAGE_EXISTS with the stored package when the tenant has this package id (nothing written; the
-- caller compares). p_class_types: sorted, joined by ','; '' for any session.
-- Mirrors the rules kernel: Rules.grantPackage (org.slotbook.core.internal.rules).
CREATE OR REPLACE PROCEDURE ${prefix}grant_package(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_package VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_credits INT,
    p_valid_from DATETIME(6),
    p_valid_until DATETIME(6),
    p_class_types VARCHAR(700) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_now DATETIME(6))
MODIFIES SQL DATA
BEGIN
    DECLARE v_now DATETIME(6) DEFAULT COALESCE(p_now, UTC_TIMESTAMP(6));
    DECLARE v_dup INT DEFAULT 0;
    DECLARE v_answer LONGTEXT;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    START TRANSACTION;
    CALL ${prefix}fence_check(p_tenant);
    BEGIN
        DECLARE CONTINUE HANDLER FOR 1062 SET v_dup = 1;
        INSERT INTO ${prefix}lesson_package (tenant_id, package_id, student_id, credits, remaining, valid_from,
                                             valid_until, class_types, granted_at)
            VALUES (p_tenant, p_package, p_student, p_credits, p_credits, p_valid_from, p_valid_until,
                    COALESCE(p_class_types, ''), v_now);
    END;
    IF v_dup = 0 THEN
        INSERT INTO ${prefix}credit_entry (tenant_id, package_id, reason, delta, booking_id, request_id, at)
            VALUES (p_tenant, p_package, 'GRANT', p_credits, NULL, NULL, v_now);
    END IF;
    -- the package: student_id, created_at = granted, res_id = class types, starts_at/ends_at = valid from/until,
    -- capacity = credits, ref_id = package, amount = remaining
    SELECT JSON_ARRAY(IF(v_dup = 0, 'GRANTED', 'PACKAGE_EXISTS'), NULL, NULL, NULL, student_id, NULL, NULL, NULL,
                      granted_at, NULL, NULL, class_types, valid_from, valid_until, NULL, NULL, credits, package_id,
                      remaining, NULL)
      INTO v_answer
      FROM ${prefix}lesson_package WHERE tenant_id = p_tenant AND package_id = p_package LOCK IN SHARE MODE;
    COMMIT;
    CALL ${prefix}emit(${prefix}answer_rows(v_answer, NULL, NULL), FALSE);
END//

-- Checks a CONFIRMED booking in within [start - p_opens_before_micros, end + p_closes_after_micros):
-- CHECKED_IN (plus EV_CHECKED_IN), CHECKED_IN_REPLAY, NOT_CONFIRMED, CHECK_IN_NOT_OPEN or
-- CHECK_IN_CLOSED (held_until = when it opens or closed; closed too for a no-show), INSUFFICIENT_CREDITS
-- (AT_CHECK_IN, a cost the booking has not paid and no package that can), NOT_FOUND (none, or another
-- student's; p_student NULL: staff). The slot's times and cost (which never change) are read first;
-- then the student's lock, the seat row's, and the booking and package read under them.
-- Mirrors the rules kernel: Rules.checkIn (org.slotbook.core.internal.rules).
CREATE OR REPLACE PROCEDURE ${prefix}check_in(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_now DATETIME(6),
    p_opens_before_micros BIGINT,
    p_closes_after_micros BIGINT,
    p_credit_policy VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin)
MODIFIES SQL DATA
BEGIN
    DECLARE v_now DATETIME(6) DEFAULT COALESCE(p_now, UTC_TIMESTAMP(6));
    DECLARE v_slot, v_owner, v_payer VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_refunded BOOLEAN DEFAULT FALSE;
    DECLARE v_status, v_attendance VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_seq INT;
    DECLARE v_n INT DEFAULT 0;
    DECLARE v_cost, v_credits INT DEFAULT 0;
    DECLARE v_opens, v_closes DATETIME(6);
    DECLARE v_answer, v_events LONGTEXT;
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    -- bad input is refused before anything is written
    IF p_credit_policy IS NOT NULL AND p_credit_policy NOT IN ('AT_BOOKING', 'AT_CHECK_IN') THEN
        SIGNAL SQLSTATE '22023' SET MESSAGE_TEXT = 'check_in: p_credit_policy must be AT_BOOKING, AT_CHECK_IN or NULL';
    END IF;
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    START TRANSACTION;
    CALL ${prefix}fence_check(p_tenant);
    main: BEGIN
        SELECT b.slot_id, b.seat, b.student_id,
               s.starts_at - INTERVAL COALESCE(p_opens_before_micros, 0) MICROSECOND,
               s.ends_at + INTERVAL COALESCE(p_closes_after_micros, 0) MICROSECOND, s.cost
          INTO v_slot, v_seq, v_owner, v_opens, v_closes, v_cost
          FROM ${prefix}booking b
          JOIN ${prefix}slot s ON s.tenant_id = b.tenant_id AND s.slot_id = b.slot_id
         WHERE b.tenant_id = p_tenant AND b.booking_id = p_booking;
        IF v_slot IS NULL OR (p_student IS NOT NULL AND v_owner <> p_student) THEN
            SET v_answer = ${prefix}fact('NOT_FOUND', NULL, NULL, NULL, NULL, NULL, NULL);
            LEAVE main;
        END IF;
        -- the student's lock, then the booking's seat row; what they guard is read with locking reads
        CALL ${prefix}lock_resource(p_tenant, 'STUDENT', v_owner);
        SELECT COUNT(*) INTO v_n FROM ${prefix}slot_seat
         WHERE tenant_id = p_tenant AND slot_id = v_slot AND seq = v_seq FOR UPDATE;
        SELECT status, attendance, credits INTO v_status, v_attendance, v_credits
          FROM ${prefix}booking WHERE tenant_id = p_tenant AND booking_id = p_booking FOR UPDATE;
        IF v_status <> 'CONFIRMED' THEN
            SET v_answer = ${prefix}booking_fact(p_tenant, p_booking, 'NOT_CONFIRMED');
        ELSEIF v_attendance = 'CHECKED_IN' THEN
            SET v_answer = ${prefix}booking_fact(p_tenant, p_booking, 'CHECKED_IN_REPLAY');
        ELSEIF v_attendance = 'NO_SHOW' OR v_now >= v_closes THEN
            SET v_answer = ${prefix}fact('CHECK_IN_CLOSED', p_booking, NULL, NULL, NULL, v_closes, NULL);
        ELSEIF v_now < v_opens THEN
            SET v_answer = ${prefix}fact('CHECK_IN_NOT_OPEN', p_booking, NULL, NULL, NULL, v_opens, NULL);
        ELSE
            IF p_credit_policy = 'AT_CHECK_IN' AND v_cost > 0 AND v_credits = 0 THEN
                CALL ${prefix}find_payer(p_tenant, v_owner, v_slot, 1, v_payer);
                IF v_payer IS NULL THEN
                    CALL ${prefix}refund_dead_holds(p_tenant, v_owner, v_now, v_refunded);
                    IF v_refunded THEN
                        CALL ${prefix}find_payer(p_tenant, v_owner, v_slot, 1, v_payer);
                    END IF;
                END IF;
                IF v_payer IS NULL THEN
                    SET v_answer = ${prefix}fact('INSUFFICIENT_CREDITS', NULL, v_slot, v_cost, NULL, NULL, NULL);
                    LEAVE main;
                END IF;
                CALL ${prefix}charge(p_tenant, p_booking, v_payer, v_cost, 'DRAW', v_now);
            END IF;
            UPDATE ${prefix}booking SET attendance = 'CHECKED_IN', updated_at = v_now
             WHERE tenant_id = p_tenant AND booking_id = p_booking;
            SET v_answer = ${prefix}booking_fact(p_tenant, p_booking, 'EV_CHECKED_IN');
            SET v_events = ${prefix}noted(v_events, v_answer), v_answer = JSON_SET(v_answer, '$[0]', 'CHECKED_IN');
        END IF;
    END main;
    CALL ${prefix}outbox_write(p_tenant, v_events);
    COMMIT;
    CALL ${prefix}emit(${prefix}answer_rows(v_answer, NULL, v_events), FALSE);
END//

-- Schedules the occurrences of a series in one transaction, each as schedule does, in order (an
-- occurrence may conflict with an earlier one of the same call). p_occurrences: records separated by
-- CHAR(30), fields by CHAR(31): slot_id, coach_id, room_id, start, end, capacity, opens_at, closes_at,
-- buffer_seconds, cancel_policy, cancel_cutoff_seconds, week_start, week_end, buffer_students ('1'/'0'),
-- class_type, cost; instants as microseconds since the epoch, '' for NULL. Answers each occurrence's
-- rows: SCHEDULED or EXISTS (the slot), or CONFLICT rows with request_id = the occurrence's slot id.
-- p_mode ALL_OR_NOTHING with a conflict: the transaction is rolled back (the rows stay as answered).
-- Mirrors the rules kernel: Rules.scheduleSeries (org.slotbook.core.internal.rules).
CREATE OR REPLACE PROCEDURE ${prefix}schedule_series(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_series VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_mode VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_longest_micros BIGINT,
    p_occurrences LONGTEXT)
MODIFIES SQL DATA
BEGIN
    DECLARE v_count, v_k, v_j INT DEFAULT 0;
    DECLARE v_conflict INT DEFAULT 0;
    DECLARE v_rec, v_part, v_row LONGTEXT;
    DECLARE v_all LONGTEXT DEFAULT '[]';
    DECLARE v_slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    SET v_count = ${prefix}batch_size(p_mode, p_occurrences);
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    START TRANSACTION;
    CALL ${prefix}fence_check(p_tenant);
    WHILE v_k < v_count DO
        SET v_k = v_k + 1;
        SET v_rec = ${prefix}record(p_occurrences, v_k);
        SET v_slot = ${prefix}rec_field(v_rec, CHAR(31), 1);
        CALL ${prefix}schedule_do(p_tenant, v_slot, ${prefix}rec_field(v_rec, CHAR(31), 2),
                                  ${prefix}rec_field(v_rec, CHAR(31), 3),
                                  ${prefix}micros_dt(${prefix}rec_field(v_rec, CHAR(31), 4)),
                                  ${prefix}micros_dt(${prefix}rec_field(v_rec, CHAR(31), 5)),
                                  CAST(${prefix}rec_field(v_rec, CHAR(31), 6) AS SIGNED), p_longest_micros, p_series,
                                  ${prefix}slot_rules(${prefix}micros_dt(${prefix}rec_field(v_rec, CHAR(31), 7)),
                                                      ${prefix}micros_dt(${prefix}rec_field(v_rec, CHAR(31), 8)),
                                                      CAST(${prefix}rec_field(v_rec, CHAR(31), 9) AS SIGNED),
                                                      ${prefix}rec_field(v_rec, CHAR(31), 10),
                                                      CAST(${prefix}rec_field(v_rec, CHAR(31), 11) AS SIGNED),
                                                      ${prefix}micros_dt(${prefix}rec_field(v_rec, CHAR(31), 12)),
                                                      ${prefix}micros_dt(${prefix}rec_field(v_rec, CHAR(31), 13)),
                                                      ${prefix}rec_field(v_rec, CHAR(31), 14) = '1',
                                                      ${prefix}rec_field(v_rec, CHAR(31), 15),
                                                      CAST(${prefix}rec_field(v_rec, CHAR(31), 16) AS SIGNED)),
                                  v_part);
        SET v_j = 0;
        WHILE v_j < JSON_LENGTH(v_part) DO
            SET v_row = JSON_EXTRACT(v_part, CONCAT('$[', v_j, ']'));
            IF JSON_UNQUOTE(JSON_EXTRACT(v_row, '$[0]')) = 'CONFLICT' THEN
                SET v_conflict = 1, v_row = JSON_SET(v_row, '$[2]', v_slot);
            END IF;
            SET v_all = JSON_ARRAY_APPEND(v_all, '$', JSON_EXTRACT(v_row, '$'));
            SET v_j = v_j + 1;
        END WHILE;
    END WHILE;
    IF v_conflict = 1 AND p_mode = 'ALL_OR_NOTHING' THEN
        ROLLBACK;
    ELSE
        COMMIT;
    END IF;
    CALL ${prefix}emit(v_all, FALSE);
END//

-- Cancels, as cancel_slot does, every OPEN occurrence of series p_series starting at or after p_from,
-- by start then slot id, in one transaction: per occurrence a SLOT_CANCELLED row (the slot) and its
-- EV_CANCELLED rows (bookings refunded). No occurrence left: no rows.
-- Mirrors the rules kernel: Rules.cancelSeries (org.slotbook.core.internal.rules).
CREATE OR REPLACE PROCEDURE ${prefix}cancel_series(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_series VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_from DATETIME(6),
    p_now DATETIME(6))
MODIFIES SQL DATA
BEGIN
    DECLARE v_now DATETIME(6) DEFAULT COALESCE(p_now, UTC_TIMESTAMP(6));
    DECLARE v_i INT DEFAULT 0;
    DECLARE v_slots, v_part LONGTEXT;
    DECLARE v_all LONGTEXT DEFAULT '[]';
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    START TRANSACTION;
    CALL ${prefix}fence_check(p_tenant);
    SET STATEMENT group_concat_max_len = 4294967295 FOR
    SELECT JSON_ARRAYAGG(slot_id ORDER BY starts_at, slot_id) INTO v_slots
      FROM ${prefix}slot FORCE INDEX (${prefix}slot_series_ix)
     WHERE tenant_id = p_tenant AND series_id = p_series AND starts_at >= p_from AND status = 'OPEN';
    WHILE v_slots IS NOT NULL AND v_i < JSON_LENGTH(v_slots) DO
        CALL ${prefix}cancel_slot_do(p_tenant, JSON_UNQUOTE(JSON_EXTRACT(v_slots, CONCAT('$[', v_i, ']'))), v_now,
                                     v_part);
        -- a concurrent cancel may have been first: it answers ALREADY_CANCELLED, left out
        IF JSON_UNQUOTE(JSON_EXTRACT(v_part, '$[0][0]')) = 'SLOT_CANCELLED' THEN
            SET v_all = JSON_MERGE_PRESERVE(v_all, v_part);
        END IF;
        SET v_i = v_i + 1;
    END WHILE;
    CALL ${prefix}outbox_write(p_tenant, v_all);
    COMMIT;
    CALL ${prefix}emit(v_all, FALSE);
END//

-- hold_do for one record of hold_all or hold_batch (fields: booking, request, slot, student, status,
-- now micros, hold micros, longest micros, gate held '1', waitlist '1', max upcoming, max week,
-- waitlist cutoff micros, credit policy), of tenant p_tenant; o_rows: the answer's rows as a JSON list,
-- each with capacity = p_position. p_batch (hold_batch): the hold waits for no lock (p_no_wait of
-- hold_do), and o_retry says it answered RETRY (its caller then rolls it back).
CREATE OR REPLACE PROCEDURE ${prefix}hold_record(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_rec LONGTEXT,
    p_batch BOOLEAN,
    p_position INT,
    OUT o_rows LONGTEXT,
    OUT o_retry BOOLEAN)
MODIFIES SQL DATA
BEGIN
    -- the fields, split with built-in functions only (a stored function call costs more than the split)
    DECLARE v_booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin
        DEFAULT SUBSTRING_INDEX(p_rec, CHAR(31), 1);
    DECLARE v_request VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin
        DEFAULT SUBSTRING_INDEX(SUBSTRING_INDEX(p_rec, CHAR(31), 2), CHAR(31), -1);
    DECLARE v_slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin
        DEFAULT SUBSTRING_INDEX(SUBSTRING_INDEX(p_rec, CHAR(31), 3), CHAR(31), -1);
    DECLARE v_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin
        DEFAULT SUBSTRING_INDEX(SUBSTRING_INDEX(p_rec, CHAR(31), 4), CHAR(31), -1);
    DECLARE v_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin
        DEFAULT SUBSTRING_INDEX(SUBSTRING_INDEX(p_rec, CHAR(31), 5), CHAR(31), -1);
    DECLARE v_now_micros VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin
        DEFAULT SUBSTRING_INDEX(SUBSTRING_INDEX(p_rec, CHAR(31), 6), CHAR(31), -1);
    DECLARE v_tail VARCHAR(400) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin
        DEFAULT SUBSTRING_INDEX(p_rec, CHAR(31), -(CHAR_LENGTH(p_rec) - CHAR_LENGTH(REPLACE(p_rec, CHAR(31), '')) - 5));
    DECLARE v_tag VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_seat, v_j INT DEFAULT 0;
    DECLARE v_held, v_at DATETIME(6);
    DECLARE v_rows LONGTEXT;

    -- v_tail: hold micros, longest micros, gate held, waitlist, max upcoming, max week, cutoff micros, credit
    -- policy (and the tenant of a hold_batch record)
    SET o_retry = FALSE;
    CALL ${prefix}hold_do(p_tenant,
                          CAST(SUBSTRING_INDEX(v_tail, CHAR(31), 1) AS SIGNED),
                          CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(v_tail, CHAR(31), 2), CHAR(31), -1) AS SIGNED),
                          CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(v_tail, CHAR(31), 5), CHAR(31), -1) AS SIGNED),
                          CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(v_tail, CHAR(31), 6), CHAR(31), -1) AS SIGNED),
                          CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(v_tail, CHAR(31), 7), CHAR(31), -1) AS SIGNED),
                          SUBSTRING_INDEX(SUBSTRING_INDEX(v_tail, CHAR(31), 8), CHAR(31), -1),
                          v_booking, v_request, v_slot, v_student, v_status,
                          IF(v_now_micros = '', NULL,
                             CAST('1970-01-01 00:00:00' AS DATETIME(6)) + INTERVAL CAST(v_now_micros AS SIGNED) MICROSECOND),
                          SUBSTRING_INDEX(SUBSTRING_INDEX(v_tail, CHAR(31), 3), CHAR(31), -1) = '1',
                          SUBSTRING_INDEX(SUBSTRING_INDEX(v_tail, CHAR(31), 4), CHAR(31), -1) = '1', p_batch, p_batch,
                          v_rows, v_tag, v_seat, v_held, v_at);
    -- the plain answers of a batched hold as JSON text of numbers and instants only (cheaper than
    -- JSON_ARRAY): RETRY, FULL, and TAKEN for a seat taken, unpaid with nothing else done on the way:
    -- seat, held_until, created_at (= updated_at); the caller knows the rest of the booking (its ids and
    -- status, no package, no credits, attendance NONE) and answers it and its event
    IF v_tag = 'RETRY' THEN
        SET o_retry = TRUE,
            o_rows = CONCAT('[["RETRY",null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,',
                            p_position, ',null,null,null]]');
    ELSEIF v_tag = 'FULL' THEN
        SET o_rows = CONCAT('[["FULL",null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,',
                            p_position, ',null,null,null]]');
    ELSEIF v_tag = 'HELD' THEN
        SET o_rows = CONCAT('[["TAKEN",null,null,null,null,', v_seat, ',null,"', v_held, '","', v_at,
                            '",null,null,null,null,null,null,null,', p_position, ',null,null,null]]');
    ELSE
        SET o_rows = '[]';
        WHILE v_j < JSON_LENGTH(v_rows) DO
            SET o_rows = JSON_ARRAY_APPEND(o_rows, '$',
                                           JSON_SET(JSON_EXTRACT(v_rows, CONCAT('$[', v_j, ']')), '$[16]', p_position));
            SET v_j = v_j + 1;
        END WHILE;
    END IF;
END//

-- Decides several holds in one transaction, each as hold does, in order. p_commands: records separated
-- by CHAR(30), fields by CHAR(31): booking_id, request_id, slot_id, student_id, status, now
-- (microseconds since the epoch, '' for the database clock, read per command), hold_micros,
-- longest_micros, gate_held ('1'/'0'), waitlist ('1'/'0'), max_upcoming, max_week,
-- waitlist_cutoff_micros, credit_policy. Every row of the n-th command (from 1) has capacity = n. A
-- command succeeds when it answers HELD, or REPLAY of a HELD or CONFIRMED booking; p_mode
-- ALL_OR_NOTHING and one that does not: the transaction is rolled back (the rows stay as answered).
-- Mirrors the rules kernel: Rules.holdAll (org.slotbook.core.internal.rules).
CREATE OR REPLACE PROCEDURE ${prefix}hold_all(
    p_tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_mode VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
    p_commands LONGTEXT)
MODIFIES SQL DATA
BEGIN
    DECLARE v_count, v_k INT DEFAULT 0;
    DECLARE v_failed INT DEFAULT 0;
    DECLARE v_rec, v_part LONGTEXT;
    DECLARE v_all LONGTEXT DEFAULT '[]';
    DECLARE v_tag VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_retry BOOLEAN;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    SET v_count = ${prefix}batch_size(p_mode, p_commands);
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    START TRANSACTION;
    CALL ${prefix}fence_check(p_tenant);
    WHILE v_k < v_count DO
        SET v_k = v_k + 1;
        SET v_rec = ${prefix}record(p_commands, v_k);
        CALL ${prefix}hold_record(p_tenant, v_rec, FALSE, v_k, v_part, v_retry);
        -- the answer row comes first
        SET v_tag = JSON_UNQUOTE(JSON_EXTRACT(v_part, '$[0][0]')),
            v_status = JSON_UNQUOTE(JSON_EXTRACT(v_part, '$[0][6]'));
        IF NOT (v_tag = 'HELD' OR (v_tag = 'REPLAY' AND v_status IN ('HELD', 'CONFIRMED'))) OR v_tag IS NULL THEN
            SET v_failed = 1;
        END IF;
        SET v_all = JSON_MERGE_PRESERVE(v_all, v_part);
    END WHILE;
    IF v_failed = 1 AND p_mode = 'ALL_OR_NOTHING' THEN
        ROLLBACK;
    ELSE
        IF v_all LIKE '%"TAKEN"%' OR v_all LIKE '%"EV\\_%' THEN
            CALL ${prefix}outbox_batch(p_tenant, v_all,
                                       CONCAT('[["', REPLACE(REPLACE(REPLACE(REPLACE(p_commands,
                                              CHAR(92), CONCAT(CHAR(92), CHAR(92))), CHAR(34), CONCAT(CHAR(92), CHAR(34))),
                                              CHAR(31), CONCAT(CHAR(34), ',', CHAR(34))),
                                              CHAR(30), CONCAT(CHAR(34), '],[', CHAR(34))), '"]]'));
        END IF;
        COMMIT;
    END IF;
    CALL ${prefix}emit(v_all, FALSE);
END//

-- The holds of concurrent callers, of any tenants and students, in one READ COMMITTED transaction.
-- p_commands: records (CHAR(30)) of fields (CHAR(31)), as hold_all's plus the tenant: booking, request,
-- slot, student, status, now micros ('' : the database clock), hold micros, longest micros, gate held
-- ('1'), waitlist ('1'), max upcoming, max week, waitlist cutoff micros, credit policy, tenant. The
-- caller orders them by tenant, then student, so that concurrent batches take the students' locks in
-- one order. Each is decided by hold_do without waiting (p_no_wait); one answered RETRY is rolled back
-- to its savepoint (nothing of it stays) and answered as a RETRY row. Answers every hold's rows, each
-- with capacity = the hold's position (from 1), in the order of the positions; a seat taken plainly as
-- one TAKEN row (see hold_record).
-- Three kinds of holds are told apart first, by one read of all the records:
-- * those hold_do would answer FULL at once (see below): answered FULL;
-- * the others whose student hold_do would lock (a valid status, no waitlist, a slot open for booking
--   that costs nothing): their students are locked together, in the batch's order, before any other;
-- * plain ones among them: no limits, their student and request each once in the batch. One locking
--   read finds those with anything to look at (a booking or waitlist entry of the request, a booking of
--   the student in the slot, an active occupation of his there); the others each take a free seat (those
--   whose slot is named once in the batch together, by one locking read and one update), and their
--   bookings and occupations are inserted together at the end;
-- * the rest, and the plain ones with something to look at: decided by hold_do one by one, as before.
-- A hold answered RETRY leaves nothing behind: the lock row the batch wrote for it is deleted again
-- (unless another hold of the batch has the same student). The batch reads no slot row with a lock.
-- Mirrors the rules kernel: Rules.hold, once per hold of the batch (org.slotbook.core.internal.rules).
CREATE OR REPLACE PROCEDURE ${prefix}hold_batch(p_commands LONGTEXT)
MODIFIES SQL DATA
BEGIN
    DECLARE v_count, v_k INT DEFAULT 0;
    DECLARE v_seq INT;
    DECLARE v_rec, v_part, v_json LONGTEXT;
    DECLARE v_all LONGTEXT DEFAULT '';
    DECLARE v_taken LONGTEXT DEFAULT '';
    DECLARE v_retry BOOLEAN;
    DECLARE v_full, v_locks, v_keep_lock, v_plain, v_plain_rows, v_odd, v_single, v_claimed LONGTEXT;
    DECLARE v_claimed_rows, v_fenced LONGTEXT;
    DECLARE v_full_rows, v_done LONGTEXT;
    DECLARE v_claims INT DEFAULT 0;
    DECLARE v_tenant, v_booking, v_slot, v_student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_now_micros VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
    DECLARE v_clock, v_at, v_held DATETIME(6);
    DECLARE CONTINUE HANDLER FOR NOT FOUND BEGIN END;
    DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

    SET v_count = IF(COALESCE(p_commands, '') = '', 0,
                     CHAR_LENGTH(p_commands) - CHAR_LENGTH(REPLACE(p_commands, CHAR(30), '')) + 1);
    -- the records as a JSON list of lists of strings (fields hold no control characters; a backslash and
    -- a double quote are escaped)
    SET v_json = CONCAT('[["', REPLACE(REPLACE(REPLACE(REPLACE(p_commands,
                                   CHAR(92), CONCAT(CHAR(92), CHAR(92))), CHAR(34), CONCAT(CHAR(92), CHAR(34))),
                                   CHAR(31), CONCAT(CHAR(34), ',', CHAR(34))),
                                   CHAR(30), CONCAT(CHAR(34), '],[', CHAR(34))), '"]]');
    SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
    START TRANSACTION;
    -- the fence of every tenant of the batch (fence_check's, for them all at once)
    SELECT GROUP_CONCAT(f.tenant_id) INTO v_fenced
      FROM ${prefix}tenant_fence f
     WHERE f.state <> 'OWNED'
       AND f.tenant_id IN (SELECT t.tenant FROM JSON_TABLE(v_json, '$[*]' COLUMNS (
                               tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[14]')) t);
    IF v_fenced IS NOT NULL THEN
        SIGNAL SQLSTATE 'SB002' SET MESSAGE_TEXT = 'a tenant of the batch is not served by this database: call each hold';
    END IF;
    -- FULL at once: a valid status, no gate count, no waitlist, the slot open for booking and full by
    -- committed seats (no free seat, no ran-out hold), no booking or waitlist entry of the request, no
    -- live booking of the student there. A hold's now is its own, or the database clock. Each NOT EXISTS
    -- stays a lookup by key per hold (exists_to_in would read a whole index to materialize it).
    SET STATEMENT optimizer_switch = 'exists_to_in=off' FOR
    SELECT GROUP_CONCAT(j.pos),
           GROUP_CONCAT(CONCAT('["FULL",null,null,null,null,null,null,null,null,null,null,null,null,null,null,null,',
                               j.pos, ',null,null,null]'))
      INTO v_full, v_full_rows
      FROM (SELECT t.*, IF(t.now_micros = '', UTC_TIMESTAMP(6), CAST('1970-01-01 00:00:00' AS DATETIME(6))
                           + INTERVAL CAST(t.now_micros AS SIGNED) MICROSECOND) AS at
                      FROM JSON_TABLE(v_json, '$[*]' COLUMNS (
                               pos FOR ORDINALITY,
                               request VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                               slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[2]',
                               student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[3]',
                               status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[4]',
                               now_micros VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[5]',
                               gate_held VARCHAR(1) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[8]',
                               waitlist VARCHAR(1) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[9]',
                               max_upcoming VARCHAR(12) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[10]',
                               max_week VARCHAR(12) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[11]',
                               tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[14]')) t) j
      STRAIGHT_JOIN ${prefix}slot s FORCE INDEX (PRIMARY) ON s.tenant_id = j.tenant AND s.slot_id = j.slot
     WHERE j.status IN ('HELD', 'CONFIRMED') AND j.gate_held = '0' AND j.waitlist = '0' AND s.status = 'OPEN'
       AND j.at < s.ends_at AND (s.opens_at IS NULL OR j.at >= s.opens_at) AND (s.closes_at IS NULL OR j.at < s.closes_at)
       AND NOT EXISTS (SELECT 1 FROM ${prefix}slot_seat f FORCE INDEX (${prefix}slot_seat_claim_ix)
                        WHERE f.tenant_id = j.tenant AND f.slot_id = j.slot AND f.status = 'FREE')
       AND NOT EXISTS (SELECT 1 FROM ${prefix}slot_seat h FORCE INDEX (${prefix}slot_seat_held_ix)
                        WHERE h.tenant_id = j.tenant AND h.slot_id = j.slot AND h.status = 'HELD'
                          AND h.held_until <= j.at)
       AND NOT EXISTS (SELECT 1 FROM ${prefix}booking r FORCE INDEX (${prefix}booking_request_uk)
                        WHERE r.tenant_id = j.tenant AND r.request_id = j.request)
       AND NOT EXISTS (SELECT 1 FROM ${prefix}waiter w FORCE INDEX (PRIMARY)
                        WHERE w.tenant_id = j.tenant AND w.request_id = j.request)
       AND NOT EXISTS (SELECT 1 FROM ${prefix}booking o FORCE INDEX (${prefix}booking_slot_ix)
                        WHERE o.tenant_id = j.tenant AND o.slot_id = j.slot AND o.student_id = j.student
                          AND (o.status = 'CONFIRMED' OR (o.status = 'HELD' AND o.held_until > j.at)));
    -- the others whose student hold_do would lock (a valid status, no waitlist, a slot open for booking
    -- that costs nothing); those whose lock row stays if they are asked again on their own (it was there
    -- before, or another hold of the batch has the same student); the plain ones among them: no limits,
    -- their student and request each once in the batch, with what the check of their overlaps needs
    -- (position, the student's time in the slot, the earliest start an overlap can have; the ids are read
    -- again from the records by position, cheaper than quoting them here), read here so that the locking
    -- read below reads no slot row; and those of the plain ones whose slot no other hold of the batch
    -- names. Skipped when every hold is answered FULL.
    IF v_full IS NULL OR CHAR_LENGTH(v_full) - CHAR_LENGTH(REPLACE(v_full, ',', '')) + 1 < v_count THEN
    SET STATEMENT group_concat_max_len = 4294967295 FOR
    SELECT GROUP_CONCAT(j.pos), GROUP_CONCAT(IF(l.resource_id IS NULL AND j.students = 1, NULL, j.pos)),
           GROUP_CONCAT(IF(j.max_upcoming = '0' AND j.max_week = '0' AND j.students = 1 AND j.requests = 1,
                           j.pos, NULL)),
           GROUP_CONCAT(IF(j.max_upcoming = '0' AND j.max_week = '0' AND j.students = 1 AND j.requests = 1,
                           CONCAT('[', j.pos, ',"', s.starts_at, '","',
                                  IF(s.buffer_students, s.ends_at + INTERVAL s.buffer_seconds SECOND, s.ends_at),
                                  '","', s.starts_at - INTERVAL CAST(j.longest AS SIGNED) MICROSECOND, '"]'),
                           NULL)),
           GROUP_CONCAT(IF(j.max_upcoming = '0' AND j.max_week = '0' AND j.students = 1 AND j.requests = 1
                           AND j.slots = 1, j.pos, NULL))
      INTO v_locks, v_keep_lock, v_plain, v_plain_rows, v_single
      FROM (SELECT t.*, IF(t.now_micros = '', UTC_TIMESTAMP(6), CAST('1970-01-01 00:00:00' AS DATETIME(6))
                           + INTERVAL CAST(t.now_micros AS SIGNED) MICROSECOND) AS at,
                   COUNT(*) OVER (PARTITION BY t.tenant, t.student) AS students,
                   COUNT(*) OVER (PARTITION BY t.tenant, t.request) AS requests,
                   COUNT(*) OVER (PARTITION BY t.tenant, t.slot) AS slots
                      FROM JSON_TABLE(v_json, '$[*]' COLUMNS (
                               pos FOR ORDINALITY,
                               request VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                               slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[2]',
                               student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[3]',
                               status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[4]',
                               now_micros VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[5]',
                               gate_held VARCHAR(1) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[8]',
                               waitlist VARCHAR(1) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[9]',
                               max_upcoming VARCHAR(12) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[10]',
                               longest VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[7]',
                               max_week VARCHAR(12) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[11]',
                               tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[14]')) t) j
      STRAIGHT_JOIN ${prefix}slot s FORCE INDEX (PRIMARY) ON s.tenant_id = j.tenant AND s.slot_id = j.slot
      LEFT JOIN ${prefix}resource_lock l FORCE INDEX (PRIMARY)
             ON l.tenant_id = j.tenant AND l.resource_kind = 'STUDENT' AND l.resource_id = j.student
     WHERE NOT COALESCE(FIND_IN_SET(j.pos, v_full) > 0, FALSE) AND j.status IN ('HELD', 'CONFIRMED')
       AND j.waitlist = '0' AND s.status = 'OPEN' AND s.cost = 0 AND j.at < s.ends_at AND (s.opens_at IS NULL OR j.at >= s.opens_at)
       AND (s.closes_at IS NULL OR j.at < s.closes_at);
    END IF;
    IF v_locks IS NOT NULL THEN
        -- their students, locked together in the batch's order (by tenant, then student)
        INSERT INTO ${prefix}resource_lock (tenant_id, resource_kind, resource_id)
        SELECT t.tenant, 'STUDENT', t.student
          FROM JSON_TABLE(v_json, '$[*]' COLUMNS (
                   pos FOR ORDINALITY,
                   student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[3]',
                   tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[14]')) t
         WHERE FIND_IN_SET(t.pos, v_locks) > 0 ORDER BY t.pos
            ON DUPLICATE KEY UPDATE resource_id = resource_id;
    END IF;
    IF v_plain IS NOT NULL THEN
        -- under their locks, newest committed rows (a locking read of the rows hold_do reads in share mode,
        -- and no other): those with anything to look at
        SELECT GROUP_CONCAT(DISTINCT j.pos) INTO v_odd
          FROM (SELECT p.pos, t.tenant, t.request, t.slot, t.student, p.starts_at, p.student_end, p.lowest
                  FROM JSON_TABLE(CONCAT('[', v_plain_rows, ']'), '$[*]' COLUMNS (
                           pos INT PATH '$[0]',
                           starts_at DATETIME(6) PATH '$[1]',
                           student_end DATETIME(6) PATH '$[2]',
                           lowest DATETIME(6) PATH '$[3]')) p
                  JOIN JSON_TABLE(v_json, '$[*]' COLUMNS (
                           pos FOR ORDINALITY,
                           request VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                           slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[2]',
                           student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[3]',
                           tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[14]')) t
                    ON t.pos = p.pos) j
          LEFT JOIN ${prefix}booking r FORCE INDEX (${prefix}booking_request_uk)
                 ON r.tenant_id = j.tenant AND r.request_id = j.request
          LEFT JOIN ${prefix}waiter w FORCE INDEX (PRIMARY) ON w.tenant_id = j.tenant AND w.request_id = j.request
          LEFT JOIN ${prefix}booking o FORCE INDEX (${prefix}booking_slot_ix)
                 ON o.tenant_id = j.tenant AND o.slot_id = j.slot AND o.student_id = j.student
                AND o.status IN ('HELD', 'CONFIRMED')
          LEFT JOIN ${prefix}occupancy c FORCE INDEX (${prefix}occupancy_overlap_ix)
                 ON c.tenant_id = j.tenant AND c.resource_kind = 'STUDENT' AND c.resource_id = j.student
                AND c.active = TRUE AND c.starts_at < j.student_end AND c.ends_at > j.starts_at
                AND c.starts_at > j.lowest
         WHERE r.booking_id IS NOT NULL OR w.request_id IS NOT NULL OR o.booking_id IS NOT NULL OR c.id IS NOT NULL
          LOCK IN SHARE MODE;
    END IF;
    SET v_clock = UTC_TIMESTAMP(6);
    IF v_single LIKE '%,%' THEN
        -- the plain holds whose slot no other hold of the batch names (two or more), together: each the first
        -- free seat of its slot, read by one locking read that skips a seat another transaction has locked
        -- (that hold then goes one by one below, as hold_do takes a seat), and their seats written by one
        -- statement: an insert of each seat's row that finds it by its primary key (the first key InnoDB
        -- checks) and updates it, cheaper here than a multi-table update; a row inserted, or a seat that is
        -- not FREE under the lock, fails the batch (2 affected rows per seat updated). One statement per step
        -- costs less than two per hold. The seats' rows (position, seat, held until, now) go to v_taken, their answers
        -- (TAKEN) to v_claimed_rows. A slot's first free seat is the first entry of the claim index read in
        -- order (LIMIT 1), not MIN(seq): for a MIN correlated to the outer row MariaDB reads every free seat.
        SET STATEMENT group_concat_max_len = 4294967295 FOR
        SELECT GROUP_CONCAT(j.pos), COUNT(*),
               GROUP_CONCAT(CONCAT('[', j.pos, ',', f.seq, ',"', j.at + INTERVAL CAST(j.hold_micros AS SIGNED) MICROSECOND,
                                   '","', j.at, '"]')),
               GROUP_CONCAT(CONCAT('["TAKEN",null,null,null,null,', f.seq, ',null,"',
                                   j.at + INTERVAL CAST(j.hold_micros AS SIGNED) MICROSECOND, '","', j.at,
                                   '",null,null,null,null,null,null,null,', j.pos, ',null,null,null]'))
          INTO v_claimed, v_claims, v_taken, v_claimed_rows
          FROM (SELECT t.*, IF(t.now_micros = '', v_clock, CAST('1970-01-01 00:00:00' AS DATETIME(6))
                               + INTERVAL CAST(t.now_micros AS SIGNED) MICROSECOND) AS at
                  FROM JSON_TABLE(v_json, '$[*]' COLUMNS (
                           pos FOR ORDINALITY,
                           booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
                           request VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                           slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[2]',
                           student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[3]',
                           status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[4]',
                           now_micros VARCHAR(32) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[5]',
                           hold_micros VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[6]',
                           tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[14]')) t
                 WHERE FIND_IN_SET(t.pos, v_single) > 0 AND NOT COALESCE(FIND_IN_SET(t.pos, v_odd) > 0, FALSE)) j
          STRAIGHT_JOIN ${prefix}slot_seat f FORCE INDEX (PRIMARY)
            ON f.tenant_id = j.tenant AND f.slot_id = j.slot AND f.status = 'FREE'
           AND f.seq = (SELECT g.seq FROM ${prefix}slot_seat g FORCE INDEX (${prefix}slot_seat_claim_ix)
                         WHERE g.tenant_id = j.tenant AND g.slot_id = j.slot AND g.status = 'FREE'
                         ORDER BY g.seq LIMIT 1)
           FOR UPDATE SKIP LOCKED;
        IF v_claims > 0 THEN
            INSERT INTO ${prefix}slot_seat (tenant_id, slot_id, seq, status, booking_id, student_id, held_until)
            SELECT k.tenant, k.slot, k.seq, k.status, k.booking, k.student, k.held
              FROM (SELECT t.tenant, t.booking, t.slot, t.student, t.status, k.seq, k.held
                 FROM JSON_TABLE(CONCAT('[', v_taken, ']'), '$[*]' COLUMNS (
                          pos INT PATH '$[0]',
                          seq INT PATH '$[1]',
                          held DATETIME(6) PATH '$[2]')) k
                 JOIN JSON_TABLE(v_json, '$[*]' COLUMNS (
                          pos FOR ORDINALITY,
                          booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
                          slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[2]',
                          student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[3]',
                          status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[4]',
                          tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[14]')) t
                   ON t.pos = k.pos) k
                ON DUPLICATE KEY UPDATE
                   booking_id = IF(${prefix}slot_seat.status = 'FREE', VALUES(booking_id), ${prefix}slot_seat.booking_id),
                   student_id = IF(${prefix}slot_seat.status = 'FREE', VALUES(student_id), ${prefix}slot_seat.student_id),
                   held_until = IF(${prefix}slot_seat.status = 'FREE', VALUES(held_until), ${prefix}slot_seat.held_until),
                   status = IF(${prefix}slot_seat.status = 'FREE', VALUES(status), ${prefix}slot_seat.status);
            IF ROW_COUNT() <> 2 * v_claims THEN
                SIGNAL SQLSTATE '40001' SET MESSAGE_TEXT = 'hold_batch: a locked free seat changed under the claim';
            END IF;
        ELSE
            SET v_taken = '';
        END IF;
    END IF;
    -- the answers of the holds answered FULL and of those whose seats were claimed together; the others
    -- are decided one by one below (the rows are put in the order of the positions when emitted)
    SET v_all = CONCAT_WS(',', v_full_rows, v_claimed_rows), v_done = CONCAT_WS(',', v_full, v_claimed);
    batch: WHILE v_k < v_count DO
        SET v_k = v_k + 1;
        IF FIND_IN_SET(v_k, v_done) > 0 THEN
            ITERATE batch;
        END IF;
        SET v_rec = SUBSTRING_INDEX(SUBSTRING_INDEX(p_commands, CHAR(30), v_k), CHAR(30), -1);
        IF FIND_IN_SET(v_k, v_plain) > 0 AND NOT COALESCE(FIND_IN_SET(v_k, v_odd) > 0, FALSE) THEN
            -- a plain hold: the first free seat no other transaction has locked, as hold_do takes it
            SET v_tenant = SUBSTRING_INDEX(v_rec, CHAR(31), -1),
                v_booking = SUBSTRING_INDEX(v_rec, CHAR(31), 1),
                v_slot = SUBSTRING_INDEX(SUBSTRING_INDEX(v_rec, CHAR(31), 3), CHAR(31), -1),
                v_student = SUBSTRING_INDEX(SUBSTRING_INDEX(v_rec, CHAR(31), 4), CHAR(31), -1),
                v_status = SUBSTRING_INDEX(SUBSTRING_INDEX(v_rec, CHAR(31), 5), CHAR(31), -1),
                v_now_micros = SUBSTRING_INDEX(SUBSTRING_INDEX(v_rec, CHAR(31), 6), CHAR(31), -1),
                v_seq = NULL;
            SET v_at = IF(v_now_micros = '', v_clock, CAST('1970-01-01 00:00:00' AS DATETIME(6))
                          + INTERVAL CAST(v_now_micros AS SIGNED) MICROSECOND);
            SET v_held = v_at + INTERVAL CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(v_rec, CHAR(31), 7), CHAR(31), -1)
                                              AS SIGNED) MICROSECOND;
            SELECT seq INTO v_seq FROM ${prefix}slot_seat FORCE INDEX (${prefix}slot_seat_claim_ix)
             WHERE tenant_id = v_tenant AND slot_id = v_slot AND status = 'FREE'
             ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED;
            IF v_seq IS NOT NULL THEN
                UPDATE ${prefix}slot_seat
                   SET status = v_status, booking_id = v_booking, student_id = v_student, held_until = v_held
                 WHERE tenant_id = v_tenant AND slot_id = v_slot AND seq = v_seq AND status = 'FREE';
                SET v_taken = CONCAT(v_taken, IF(v_taken = '', '', ','), '[', v_k, ',', v_seq, ',"', v_held, '","', v_at,
                                     '"]');
                SET v_all = CONCAT(v_all, IF(v_all = '', '', ','), '["TAKEN",null,null,null,null,', v_seq, ',null,"',
                                   v_held, '","', v_at, '",null,null,null,null,null,null,null,', v_k,
                                   ',null,null,null]');
            ELSE
                -- asked again on its own; the student's lock row this batch wrote goes again
                IF NOT COALESCE(FIND_IN_SET(v_k, v_keep_lock) > 0, FALSE) THEN
                    DELETE FROM ${prefix}resource_lock
                     WHERE tenant_id = v_tenant AND resource_kind = 'STUDENT' AND resource_id = v_student;
                END IF;
                SET v_all = CONCAT(v_all, IF(v_all = '', '', ','),
                                   '["RETRY",null,null,null,null,null,null,null,null,null,null,null,null,null,null,',
                                   'null,', v_k, ',null,null,null]');
            END IF;
            ITERATE batch;
        END IF;
        SAVEPOINT hold_batch_one;
        CALL ${prefix}hold_record(SUBSTRING_INDEX(v_rec, CHAR(31), -1), v_rec, TRUE, v_k, v_part, v_retry);
        IF v_retry THEN
            ROLLBACK TO SAVEPOINT hold_batch_one;
            IF FIND_IN_SET(v_k, v_locks) > 0 AND NOT COALESCE(FIND_IN_SET(v_k, v_keep_lock) > 0, FALSE) THEN
                DELETE FROM ${prefix}resource_lock
                 WHERE tenant_id = SUBSTRING_INDEX(v_rec, CHAR(31), -1) AND resource_kind = 'STUDENT'
                   AND resource_id = SUBSTRING_INDEX(SUBSTRING_INDEX(v_rec, CHAR(31), 4), CHAR(31), -1);
            END IF;
        ELSEIF JSON_VALUE(v_part, '$[0][0]') IN ('REPLAY', 'WAITLISTED_REPLAY') AND FIND_IN_SET(v_k, v_locks) > 0
                AND NOT COALESCE(FIND_IN_SET(v_k, v_keep_lock) > 0, FALSE) THEN
            -- a replay writes nothing (its request id may be another student's, which the caller refuses):
            -- the lock row this batch wrote for a student new to the tenant goes again
            DELETE FROM ${prefix}resource_lock
             WHERE tenant_id = SUBSTRING_INDEX(v_rec, CHAR(31), -1) AND resource_kind = 'STUDENT'
               AND resource_id = SUBSTRING_INDEX(SUBSTRING_INDEX(v_rec, CHAR(31), 4), CHAR(31), -1);
        END IF;
        -- the part's rows without the list's brackets, joined by commas
        IF CHAR_LENGTH(v_part) > 2 THEN
            SET v_all = CONCAT(v_all, IF(v_all = '', '', ','), SUBSTRING(v_part, 2, CHAR_LENGTH(v_part) - 2));
        END IF;
    END WHILE batch;
    IF v_taken <> '' THEN
        -- the plain holds' bookings and their students' occupations
        INSERT INTO ${prefix}booking (tenant_id, booking_id, request_id, slot_id, student_id, seat, status, held_until,
                                      created_at, updated_at)
        SELECT k.tenant, k.booking, k.request, k.slot, k.student, k.seq, k.status, k.held, k.at, k.at
          FROM (SELECT t.tenant, t.booking, t.request, t.slot, t.student, t.status, k.pos, k.seq, k.held, k.at
             FROM JSON_TABLE(CONCAT('[', v_taken, ']'), '$[*]' COLUMNS (
                      pos INT PATH '$[0]',
                      seq INT PATH '$[1]',
                      held DATETIME(6) PATH '$[2]',
                      at DATETIME(6) PATH '$[3]')) k
             JOIN JSON_TABLE(v_json, '$[*]' COLUMNS (
                      pos FOR ORDINALITY,
                      booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
                      request VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                      slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[2]',
                      student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[3]',
                      status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[4]',
                      tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[14]')) t
               ON t.pos = k.pos) k;
        INSERT INTO ${prefix}occupancy (tenant_id, resource_kind, resource_id, starts_at, ends_at, slot_id, booking_id,
                                        active)
        SELECT k.tenant, 'STUDENT', k.student, p.starts_at, p.student_end, k.slot, k.booking, TRUE
          FROM (SELECT t.tenant, t.booking, t.request, t.slot, t.student, t.status, k.pos, k.seq, k.held, k.at
             FROM JSON_TABLE(CONCAT('[', v_taken, ']'), '$[*]' COLUMNS (
                      pos INT PATH '$[0]',
                      seq INT PATH '$[1]',
                      held DATETIME(6) PATH '$[2]',
                      at DATETIME(6) PATH '$[3]')) k
             JOIN JSON_TABLE(v_json, '$[*]' COLUMNS (
                      pos FOR ORDINALITY,
                      booking VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[0]',
                      request VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[1]',
                      slot VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[2]',
                      student VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[3]',
                      status VARCHAR(16) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[4]',
                      tenant VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PATH '$[14]')) t
               ON t.pos = k.pos) k
          JOIN JSON_TABLE(CONCAT('[', v_plain_rows, ']'), '$[*]' COLUMNS (
                   pos INT PATH '$[0]',
                   starts_at DATETIME(6) PATH '$[1]',
                   student_end DATETIME(6) PATH '$[2]')) p ON p.pos = k.pos;
    END IF;
    -- a batch that took no seat and wrote no event (a full slot's refusals) has nothing to write
    IF v_all LIKE '%"TAKEN"%' OR v_all LIKE '%"EV\\_%' THEN
        CALL ${prefix}outbox_batch(NULL, CONCAT('[', v_all, ']'), v_json);
    END IF;
    COMMIT;
    -- the rows of every hold in the order of the positions, each hold's rows in their order
    CALL ${prefix}emit(CONCAT('[', v_all, ']'), TRUE);
END//

DELIMITER ;
