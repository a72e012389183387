package org.slotbook.jdbc.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.h2.engine.Session;
import org.h2.jdbc.JdbcConnection;
import org.h2.tools.SimpleResultSet;

/**
 * The one-call routines of the store on H2 ({@code docs}: the one-call contract), as Java
 * static methods that {@code schema-h2.sql} registers per table prefix:
 * <pre>{@code
 * CREATE ALIAS IF NOT EXISTS ${prefix}hold DETERMINISTIC FOR 'org.slotbook.jdbc.internal.H2Routines.hold'
 * SELECT * FROM ${prefix}hold('${prefix}', ?, ?, ...)  -- as the store calls it; CALL works too, parsed twice
 * }</pre>
 * H2 passes its nested connection first (the caller's session and transaction); the table prefix
 * is the first SQL argument, since one method serves every prefix. Each routine answers with fact
 * rows of the 20 contract columns ({@link #FACT_COLUMNS}).
 *
 * <p>Atomicity: H2 does not undo the writes of a table function whose call fails (the call is a
 * query to H2, and an autocommitted session then commits what the function had written). So each
 * routine sets a savepoint on the nested connection and rolls back to it when it fails; it never
 * commits, rolls back the transaction, or closes the connection. A unique violation propagates as
 * it came (SQLState 23505), as do lock timeouts and deadlocks (50200, 40001).
 *
 * <p>Lock order everywhere: resource_lock rows (by kind, then id), slot row, seat rows, booking rows. A
 * routine that frees a seat (cancel, expiry, a retired dead hold) locks the slot row before the seat
 * row, and the promotion that follows takes each waiter's student lock after the slot row: the one
 * exception to the order, whose rare deadlock the caller's retry resolves. Credits: a package row is
 * locked last (after the student's lock and the seat rows); a paid hold locks the paying package
 * under the student's lock, so the holds of one student draw one after the other, and a draw is a
 * conditional update that never takes remaining below the cost.
 */
public final class H2Routines {
    /** The contract's fact columns, in order. */
    public static final List<String> FACT_COLUMNS = List.of("TAG", "BOOKING_ID", "REQUEST_ID", "SLOT_ID",
            "STUDENT_ID", "SEAT", "STATUS", "HELD_UNTIL", "CREATED_AT", "UPDATED_AT", "RES_KIND", "RES_ID",
            "STARTS_AT", "ENDS_AT", "COACH_ID", "ROOM_ID", "CAPACITY", "REF_ID", "AMOUNT", "NOTE");

    /** The URL of the connection H2 passes when it only asks a table function for its columns. */
    private static final String COLUMN_LIST_URL = "jdbc:columnlist:connection";
    /** Rounds of "lock a candidate seat, then take it by a conditional update" before giving up. */
    private static final int CLAIM_ROUNDS = 8;
    private static final String INVALID_ARGUMENT = "22023";
    /** The longest buffer a slot may have (SlotSpec.MAX_BUFFER): how much longer than a session an occupation is. */
    private static final long MAX_BUFFER_SECONDS = 24 * 3600;
    private static final String INCONSISTENT = "XX000";

    private static final Map<String, Sql> SQL = new ConcurrentHashMap<>();

    private H2Routines() {
    }

    // ================================================================== the routines

    /**
     * Schedules a slot: lock coach and room, answer {@code EXISTS} for a stored slot, {@code CONFLICT}
     * rows for clashing coach/room occupations over the padded time [start, end + buffer), else insert
     * slot, seats and the two padded occupations: {@code SCHEDULED}. With p_buffer_students the buffer
     * applies to the slot's booked students too (their occupations end at end + buffer). The slot keeps
     * its class type, cost (credits a booking draws) and series.
     */
    public static ResultSet schedule(Connection connection, String prefix, String tenant, String slotId,
                                     String coach, String room, OffsetDateTime start, OffsetDateTime end,
                                     Integer capacity, Long longestMicros, OffsetDateTime opensAt,
                                     OffsetDateTime closesAt, Integer bufferSeconds, String cancelPolicy,
                                     Integer cancelCutoffSeconds, OffsetDateTime weekStart, OffsetDateTime weekEnd,
                                     Boolean bufferStudents, String classType, Integer cost, String seriesId)
            throws SQLException {
        return run(connection, prefix, tenant, null, call -> scheduleOne(call, slotId, coach, room, start, end,
                capacity, longestMicros, opensAt, closesAt, bufferSeconds, cancelPolicy, cancelCutoffSeconds,
                weekStart, weekEnd, bufferStudents, classType, cost, seriesId));
    }

    /** The body of schedule; answers true when the slot is stored (SCHEDULED or EXISTS), false on CONFLICT. */
    private static boolean scheduleOne(Call call, String slotId, String coach, String room, OffsetDateTime start,
                                       OffsetDateTime end, Integer capacity, Long longestMicros,
                                       OffsetDateTime opensAt, OffsetDateTime closesAt, Integer bufferSeconds,
                                       String cancelPolicy, Integer cancelCutoffSeconds, OffsetDateTime weekStart,
                                       OffsetDateTime weekEnd, Boolean bufferStudents, String classType,
                                       Integer cost, String seriesId) throws SQLException {
        String tenant = call.tenant;
        required("p_slot", slotId);
        required("p_coach", coach);
        required("p_room", room);
        required("p_capacity", capacity);
        OffsetDateTime from = utcMicros(required("p_start", start));
        OffsetDateTime to = utcMicros(required("p_end", end));
        int buffer = bufferSeconds == null ? 0 : bufferSeconds;
        if (buffer < 0) {
            throw invalid("p_buffer_seconds must not be negative, got " + bufferSeconds);
        }
        if (cancelPolicy != null && !List.of("FREE", "REFUSE", "LATE").contains(cancelPolicy)) {
            throw invalid("p_cancel_policy must be 'FREE', 'REFUSE', 'LATE' or NULL, got " + cancelPolicy);
        }
        int price = cost == null ? 0 : cost;
        if (price < 0) {
            throw invalid("p_cost must not be negative, got " + cost);
        }
        OffsetDateTime padded = to.plusSeconds(buffer);
        // a stored occupation lasts at most the longest session and its buffer
        OffsetDateTime lowest = from.minus(positive("p_longest_micros", longestMicros), ChronoUnit.MICROS)
                .minusSeconds(MAX_BUFFER_SECONDS);

        call.lockResource("COACH", coach);
        call.lockResource("ROOM", room);
        Optional<Slot> stored = call.findSlot(slotId);
        if (stored.isPresent()) {
            call.facts.slot("EXISTS", stored.get());
            return true;
        }
        List<Occupation> clashes = new ArrayList<>(call.occupations("COACH", coach, from, padded, lowest));
        clashes.addAll(call.occupations("ROOM", room, from, padded, lowest));
        if (!clashes.isEmpty()) {
            for (Occupation clash : clashes) {
                call.facts.conflict(clash, call.occurrence);
            }
            return false;
        }
        Slot slot = new Slot(slotId, coach, room, from, to, capacity, "OPEN", utcOrNull(opensAt),
                utcOrNull(closesAt), buffer, cancelPolicy, cancelCutoffSeconds, utcOrNull(weekStart),
                utcOrNull(weekEnd), Boolean.TRUE.equals(bufferStudents), classType, price, seriesId);
        if (!call.insertSlot(slot)) {
            // a concurrent schedule of the same slot id (under another coach or room) was first
            call.facts.slot("EXISTS", call.findSlot(slotId).orElseThrow(() -> inconsistent(
                    "slot '" + slotId + "' could be neither inserted nor found")));
            return true;
        }
        call.update(call.sql.insertSeats, tenant, slotId, capacity);
        call.update(call.sql.insertOccupation, tenant, "COACH", coach, from, padded, slotId, null);
        call.update(call.sql.insertOccupation, tenant, "ROOM", room, from, padded, slotId, null);
        call.facts.slot("SCHEDULED", slot);
        return true;
    }

    /**
     * Holds (p_status HELD) or books (CONFIRMED) a seat for the student, or puts the student on the
     * slot's waitlist; the steps are numbered as in the contract.
     */
    public static ResultSet hold(Connection connection, String prefix, String tenant, String bookingId,
                                 String requestId, String slotId, String student, String status, OffsetDateTime now,
                                 Long holdMicros, Long longestMicros, Boolean gateHeld, Boolean waitlist,
                                 Integer maxUpcoming, Integer maxWeek, Long waitlistCutoffMicros,
                                 String creditPolicy)
            throws SQLException {
        return run(connection, prefix, tenant, now, call -> holdOne(call, bookingId, requestId, slotId, student,
                status, Boolean.TRUE.equals(gateHeld), Boolean.TRUE.equals(waitlist),
                Terms.of(holdMicros, longestMicros, maxUpcoming, maxWeek, waitlistCutoffMicros, creditPolicy)));
    }

    /** The body of hold (the steps numbered as in the contract). */
    private static void holdOne(Call call, String bookingId, String requestId, String slotId, String student,
                                String status, boolean gateHeld, boolean joins, Terms terms) throws SQLException {
        String tenant = call.tenant;
        {
            required("p_booking", bookingId);
            required("p_request", requestId);
            required("p_slot", slotId);
            required("p_student", student);
            if (!"HELD".equals(status) && !"CONFIRMED".equals(status)) {
                throw invalid("p_status must be 'HELD' or 'CONFIRMED', got " + status);
            }
            OffsetDateTime heldUntil = call.now.plus(terms.holdMicros(), ChronoUnit.MICROS);
            Facts facts = call.facts;

            // 1. the slot (and, read with it, whether committed seats leave one to take: step 4)
            boolean probe = !gateHeld && !joins;
            Optional<Probed> found = probe ? call.findSlotWithSeat(slotId, student)
                    : call.findSlot(slotId).map(s -> new Probed(s, true, null));
            if (found.isEmpty()) {
                facts.bare("NOT_FOUND");
                return;
            }
            Slot slot = found.get().slot();
            // 2. cancelled or over: only a replay gets an answer with a booking
            if (!"OPEN".equals(slot.status()) || !call.now.isBefore(slot.endsAt())) {
                if (!call.replay(call.requestOf(requestId))) {
                    facts.notOpen(slot);
                }
                return;
            }
            // 3. the booking window
            if (slot.opensAt() != null && call.now.isBefore(slot.opensAt())) {
                if (!call.replay(call.requestOf(requestId))) {
                    facts.instant("NOT_OPEN_YET", slot.opensAt());
                }
                return;
            }
            if (slot.closesAt() != null && !call.now.isBefore(slot.closesAt())) {
                if (!call.replay(call.requestOf(requestId))) {
                    facts.instant("BOOKING_CLOSED", slot.closesAt());
                }
                return;
            }
            // 4. full by committed seats: answer without locking anything (not when joining the waitlist)
            if (!found.get().seatToTake()) {
                Request request = call.requestOf(requestId, slotId, student);
                if (call.replay(request)) {
                    return;
                }
                // the student check comes before capacity: a live booking of his now is answered as read;
                // none now, and none when the slot was found full, is FULL then; one then but none now (a
                // cancel of it committed since freed a seat) is decided under his lock below
                if (request.active().isPresent() && request.active().get().isLive(call.now)) {
                    facts.booking("ALREADY", request.active().get());
                    return;
                }
                if (found.get().mine() == null) {
                    facts.bare("FULL");
                    return;
                }
            }
            // 5. everything about this student is decided under his lock
            call.beforeNewLock = null;
            call.lockResource("STUDENT", student);
            // 6. a replay of this request (any slot, any student: the caller checks the payload), and
            // 7. the student's own booking of this slot: read together
            Request request = call.requestOf(requestId, slotId, student);
            if (call.replay(request)) {
                // a replay writes nothing, not even the lock row of a student new to the tenant (the request
                // id may be another student's: the caller refuses that)
                call.undoNewLock();
                return;
            }
            Optional<Booking> mine = request.active();
            if (mine.isPresent() && mine.get().isLive(call.now)) {
                facts.booking("ALREADY", mine.get());
                return;
            }
            // 8. the student's overlapping occupations; a dead hold blocks nothing
            Map<String, Booking> deadHolds = new LinkedHashMap<>();
            mine.ifPresent(dead -> deadHolds.put(dead.bookingId(), dead));
            List<Occupation> clashes = new ArrayList<>();
            for (Occupation o : call.studentOccupations(student, slot, terms)) {
                if (o.booking() != null && o.booking().isDeadHold(call.now)) {
                    deadHolds.putIfAbsent(o.booking().bookingId(), o.booking());
                } else {
                    clashes.add(o);
                }
            }
            if (!clashes.isEmpty()) {
                clashes.forEach(facts::conflict);
                return;
            }
            // 9. the student's limits
            if (call.limitReached(student, slot, terms)) {
                return;
            }
            // 10. retire the dead holds in the way (this slot's first); each freed seat goes to a waiter first
            for (Booking dead : deadHolds.values()) {
                call.retire(dead, terms);
            }
            // 10b. a slot with a cost needs a package of the student that can pay it, for a seat and for a
            // place on the waitlist alike; paid now (AT_BOOKING): the package row is locked here, under the
            // student's lock, and drawn once the seat is taken
            String payer = null;
            if (slot.cost() > 0) {
                payer = terms.atBooking() ? call.lockPayer(student, slot) : call.payer(student, slot);
                if (payer == null) {
                    facts.insufficient(slotId, slot.cost());
                    return;
                }
            }
            // 11. claim a seat: a free one, else (when nobody waits) one whose hold ran out
            Optional<Claim> claim = call.claimSeat(slotId, bookingId, student, status, heldUntil,
                    () -> !call.hasWaiting(slotId));
            if (claim.isEmpty()) {
                // 12. the waitlist, or full
                if (!joins || !call.now.isBefore(terms.promotionCutoff(slot))) {
                    facts.bare("FULL");
                    return;
                }
                // under the slot's lock: a cancel either freed its seat before (we see it) or sees us waiting
                Slot locked = call.lockSlot(slotId);
                if (!"OPEN".equals(locked.status())) {
                    facts.notOpen(locked);
                    return;
                }
                claim = call.claimSeat(slotId, bookingId, student, status, heldUntil, Takeover.NEVER);
                if (claim.isEmpty()) {
                    Optional<Waiter> waiting = call.waitingOf(slotId, student);
                    if (waiting.isPresent()) {
                        facts.waiter("WAITLISTED_REPLAY", waiting.get(), call.position(waiting.get()));
                        return;
                    }
                    call.update(call.sql.insertWaiter, tenant, requestId, slotId, student, bookingId, call.now,
                            call.now);
                    Waiter joined = call.findWaiter(requestId).orElseThrow(() -> inconsistent(
                            "the waitlist entry of request '" + requestId + "' is missing after its insert"));
                    facts.waiter("WAITLISTED", joined, call.position(joined));
                    return;
                }
            }
            if (claim.get().displaced() != null) {
                facts.booking("EV_EXPIRED", call.expireDisplaced(claim.get().displaced()));
            }
            // the booking and the student's occupation
            Booking booking = Booking.fresh(bookingId, requestId, slotId, student, claim.get().seq(), status,
                    heldUntil, call.now);
            call.update(call.sql.insertBooking, tenant, bookingId, requestId, slotId, student, booking.seat(), status,
                    heldUntil, call.now, call.now);
            call.update(call.sql.insertOccupation, tenant, "STUDENT", student, slot.startsAt(), slot.studentEnd(),
                    slotId, bookingId);
            if (slot.cost() > 0 && terms.atBooking()) {
                booking = call.charge(booking, payer, slot.cost(), "DRAW");
            }
            facts.booking("HELD", booking);
            facts.booking("CONFIRMED".equals(status) ? "EV_CONFIRMED" : "EV_HELD", booking);
        }
    }

    /** Confirms the student's live hold; a hold that ran out expires here instead, its seat offered to a waiter. */
    public static ResultSet confirm(Connection connection, String prefix, String tenant, String bookingId,
                                    String student, OffsetDateTime now, Long holdMicros, Long longestMicros,
                                    Integer maxUpcoming, Integer maxWeek, Long waitlistCutoffMicros,
                                    String creditPolicy)
            throws SQLException {
        return run(connection, prefix, tenant, now, call -> {
            required("p_booking", bookingId);
            required("p_student", student);
            Terms terms = Terms.of(holdMicros, longestMicros, maxUpcoming, maxWeek, waitlistCutoffMicros,
                    creditPolicy);
            Facts facts = call.facts;
            for (int attempt = 0; attempt < 3; attempt++) {
                Optional<Booking> found = call.findOwned(bookingId, student);
                if (found.isEmpty()) {
                    facts.bare("NOT_FOUND");
                    return;
                }
                Booking b = found.get();
                if (b.isLive(call.now) && "HELD".equals(b.status())) {
                    // lock the seat, then read the booking again
                    found = call.lockSeatAndReread(b);
                    if (found.isEmpty()) {
                        continue;
                    }
                    b = found.get();
                }
                switch (b.status()) {
                    case "CONFIRMED" -> {
                        facts.booking("CONFIRMED", b);
                        return;
                    }
                    case "CANCELLED" -> {
                        facts.bare("ALREADY_CANCELLED");
                        return;
                    }
                    case "EXPIRED" -> {
                        facts.booking("HOLD_EXPIRED", b);
                        return;
                    }
                    default -> {
                        if (call.now.isBefore(b.heldUntil())) {
                            if (call.confirmThroughSeat(b)) {
                                Booking confirmed = b.with("CONFIRMED", call.now);
                                facts.booking("CONFIRMED", confirmed);
                                facts.booking("EV_CONFIRMED", confirmed);
                                return;
                            }
                        } else {
                            Optional<Booking> expired = call.retire(b, terms);
                            if (expired.isPresent()) {
                                facts.booking("HOLD_EXPIRED", expired.get());
                                return;
                            }
                        }
                        // changed under us: read it again
                    }
                }
            }
            throw inconsistent("booking '" + bookingId + "' kept changing state during confirm");
        });
    }

    /**
     * Cancels a booking (the student's own, or any of the tenant's when p_student is NULL: staff) and
     * frees its seat for the first waiter who can take it; idempotent. The slot's cancel policy, else
     * the given one, decides whether the cancel is late, and whether a late one is refused.
     */
    public static ResultSet cancel(Connection connection, String prefix, String tenant, String bookingId,
                                   String student, OffsetDateTime now, String cancelPolicy, Long cancelCutoffMicros,
                                   Long holdMicros, Long longestMicros, Integer maxUpcoming, Integer maxWeek,
                                   Long waitlistCutoffMicros, String creditPolicy) throws SQLException {
        return run(connection, prefix, tenant, now, call -> {
            required("p_booking", bookingId);
            if (cancelPolicy != null && !List.of("FREE", "REFUSE", "LATE").contains(cancelPolicy)) {
                throw invalid("p_cancel_policy must be 'FREE', 'REFUSE', 'LATE' or NULL, got " + cancelPolicy);
            }
            Terms terms = Terms.of(holdMicros, longestMicros, maxUpcoming, maxWeek, waitlistCutoffMicros,
                    creditPolicy);
            Facts facts = call.facts;
            Optional<Booking> found = student == null ? call.findBooking(bookingId) : call.findOwned(bookingId, student);
            if (found.isEmpty()) {
                facts.bare("NOT_FOUND");
                return;
            }
            Booking b = found.get();
            if (!b.isActive()) {
                facts.booking("ALREADY_CANCELLED", b);
                return;
            }
            // lock order: slot row, seat row, then the booking read again
            Slot slot = call.lockSlot(b.slotId());
            Optional<Booking> reread = call.lockSeatAndReread(b);
            if (reread.isEmpty()) {
                throw inconsistent("booking '" + bookingId + "' disappeared during cancel");
            }
            b = reread.get();
            if (!b.isActive()) {
                facts.booking("ALREADY_CANCELLED", b);
                return;
            }
            if (b.isDeadHold(call.now)) {
                // the hold already ran out: nothing to cancel, but retire it now
                Optional<Booking> expired = call.retire(b, slot, terms);
                facts.booking("ALREADY_CANCELLED", expired.orElse(b));
                return;
            }
            if (student != null && !"NONE".equals(b.attendance())) {
                // the student came (or was marked absent): only staff may still cancel
                facts.tooLate(bookingId, slot.startsAt());
                return;
            }
            String policy;
            Long cutoffMicros;
            if (slot.cancelPolicy() != null) {
                policy = slot.cancelPolicy();
                cutoffMicros = slot.cancelCutoffSeconds() == null ? null : slot.cancelCutoffSeconds() * 1_000_000L;
            } else {
                policy = cancelPolicy;
                cutoffMicros = cancelCutoffMicros;
            }
            OffsetDateTime cutoff = cutoffMicros == null ? null : slot.startsAt().minus(cutoffMicros, ChronoUnit.MICROS);
            // a hold never confirmed is no booking yet: never late, never charged
            boolean late = "CONFIRMED".equals(b.status()) && cutoff != null && !call.now.isBefore(cutoff);
            if (late && "REFUSE".equals(policy) && student != null) {
                facts.instant("TOO_LATE", cutoff);
                return;
            }
            if (call.update(call.sql.freeSeatOfActive, tenant, b.slotId(), b.seat(), b.bookingId()) == 0) {
                facts.booking("ALREADY_CANCELLED", call.findBooking(bookingId).orElse(b));
                return;
            }
            // a late cancel by the student keeps the credits (or forfeits them); any other cancel refunds
            if (late && student != null) {
                call.forfeit(b, slot, terms);
            } else {
                call.refund(b);
            }
            if (call.update(call.sql.cancelBooking, call.now, late, tenant, b.bookingId()) != 1) {
                throw inconsistent("the seat of booking '" + b.bookingId() + "' changed but the booking row did not");
            }
            call.update(call.sql.releaseBooking, tenant, b.bookingId());
            Booking cancelled = call.reread(b);
            facts.cancelled(cancelled, late);
            facts.booking(late ? "EV_LATE_CANCELLED" : "EV_CANCELLED", cancelled);
            call.promote(slot, terms);
        });
    }

    /** Calls a slot off: every seat closed, every active booking refunded and cancelled, every occupation released. */
    public static ResultSet cancelSlot(Connection connection, String prefix, String tenant, String slotId,
                                       OffsetDateTime now) throws SQLException {
        return run(connection, prefix, tenant, now, call -> {
            required("p_slot", slotId);
            cancelSlotOne(call, slotId, true);
        });
    }

    /**
     * The body of cancel_slot: SLOT_CANCELLED and one EV_CANCELLED per booking; with {@code answerAll},
     * NOT_FOUND and ALREADY_CANCELLED too. True when this call cancelled the slot.
     */
    private static boolean cancelSlotOne(Call call, String slotId, boolean answerAll) throws SQLException {
        String tenant = call.tenant;
        Facts facts = call.facts;
        Optional<Slot> found = call.findSlot(slotId);
        if (found.isEmpty()) {
            if (answerAll) {
                facts.bare("NOT_FOUND");
            }
            return false;
        }
        // the conditional update locks the slot row and decides between concurrent cancels
        if (!"OPEN".equals(found.get().status())
                || call.update(call.sql.cancelSlot, tenant, slotId) == 0) {
            if (answerAll) {
                facts.bare("ALREADY_CANCELLED");
            }
            return false;
        }
        // closing every seat waits for a claim in flight; no claim can take one afterwards
        call.update(call.sql.closeSeats, tenant, slotId);
        List<Booking> active = call.query(call.sql.activeBookingsOfSlot, Booking::read, tenant, slotId);
        for (Booking b : active) {
            call.refund(b);
        }
        int cancelled = call.update(call.sql.cancelBookingsOfSlot, call.now, tenant, slotId);
        if (cancelled != active.size()) {
            throw inconsistent("cancel slot '" + slotId + "': " + active.size() + " active bookings read, "
                    + cancelled + " cancelled");
        }
        call.update(call.sql.releaseSlot, tenant, slotId);
        facts.slot("SLOT_CANCELLED", call.findSlot(slotId).orElseThrow(() -> inconsistent(
                "slot '" + slotId + "' disappeared during its cancel")));
        for (Booking b : active) {
            facts.booking("EV_CANCELLED", call.reread(b));
        }
        return true;
    }

    /**
     * Expires up to p_limit holds of the tenant that ran out, oldest deadline first (each refunded); each
     * freed seat goes to the first waiter of its slot who can take it: EV_EXPIRED, then its EV_SKIPPED and
     * EV_PROMOTED rows. Then, with p_marks_no_shows, marks with what is left of p_limit the CONFIRMED
     * bookings not checked in whose check-in closed: NO_SHOW (under AT_CHECK_IN a FORFEIT), EV_NO_SHOW.
     */
    public static ResultSet expireDue(Connection connection, String prefix, String tenant, OffsetDateTime now,
                                      Integer limit, Long holdMicros, Long longestMicros, Integer maxUpcoming,
                                      Integer maxWeek, Long waitlistCutoffMicros, String creditPolicy,
                                      Boolean marksNoShows, Long checkInClosesMicros) throws SQLException {
        return run(connection, prefix, tenant, now, call -> {
            if (limit == null || limit <= 0) {
                throw invalid("p_limit must be positive, got " + limit);
            }
            Terms terms = Terms.of(holdMicros, longestMicros, maxUpcoming, maxWeek, waitlistCutoffMicros,
                    creditPolicy);
            int done = 0;
            for (Booking due : call.query(call.sql.dueHolds, Booking::read, tenant, call.now, limit)) {
                // another sweeper or a takeover may have been first: the seat decides
                if (call.retire(due, terms).isPresent()) {
                    done++;
                }
            }
            if (!Boolean.TRUE.equals(marksNoShows) || done >= limit) {
                return;
            }
            long closes = checkInClosesMicros == null ? 0 : checkInClosesMicros;
            // ends_at + closes <= now, i.e. ends_at <= now - closes
            OffsetDateTime endedBy = call.now.minus(closes, ChronoUnit.MICROS);
            for (Booking absent : call.query(call.sql.unattended, Booking::read, tenant, endedBy, limit - done)) {
                // the seat row decides between sweepers, a check-in and a cancel: lock it, then check the booking
                Optional<Booking> locked = call.lockSeatAndReread(absent);
                if (locked.isEmpty() || !"CONFIRMED".equals(locked.get().status())
                        || !"NONE".equals(locked.get().attendance())) {
                    continue;
                }
                Booking b = locked.get();
                call.forfeit(b, call.findSlot(b.slotId()).orElseThrow(() -> inconsistent(
                        "slot '" + absent.slotId() + "' of a booking is missing")), terms);
                if (call.update(call.sql.setAttendance, "NO_SHOW", call.now, tenant, b.bookingId(), "NONE") != 1) {
                    throw inconsistent("booking '" + b.bookingId() + "' changed under its seat's lock");
                }
                call.facts.booking("EV_NO_SHOW", call.reread(b));
            }
        });
    }

    /** Takes the student's waiting entry of request p_request off the waitlist: LEFT, NOT_WAITING or NOT_FOUND. */
    public static ResultSet leaveWaitlist(Connection connection, String prefix, String tenant, String requestId,
                                          String student, OffsetDateTime now) throws SQLException {
        return run(connection, prefix, tenant, now, call -> {
            required("p_request", requestId);
            required("p_student", student);
            Facts facts = call.facts;
            Optional<Waiter> found = first(call.query(call.sql.lockWaiter, Waiter::read, tenant, requestId));
            if (found.isEmpty() || !found.get().studentId().equals(student)) {
                facts.bare("NOT_FOUND");
                return;
            }
            Waiter w = found.get();
            if (!"WAITING".equals(w.status())) {
                facts.waiter("NOT_WAITING", w, 0);
                return;
            }
            call.setWaiter(w, "LEFT", null);
            facts.waiter("LEFT", w.with("LEFT", null), 0);
        });
    }

    // ================================================================== lessons

    /**
     * Grants a package: GRANTED with the package and its GRANT journal entry, or PACKAGE_EXISTS with the
     * stored package when the tenant has this package id (nothing written).
     */
    public static ResultSet grantPackage(Connection connection, String prefix, String tenant, String packageId,
                                         String student, Integer credits, OffsetDateTime validFrom,
                                         OffsetDateTime validUntil, String classTypes, OffsetDateTime now)
            throws SQLException {
        return run(connection, prefix, tenant, now, call -> {
            required("p_package", packageId);
            required("p_student", student);
            if (credits == null || credits <= 0) {
                throw invalid("p_credits must be positive, got " + credits);
            }
            OffsetDateTime from = utcMicros(required("p_valid_from", validFrom));
            OffsetDateTime until = utcMicros(required("p_valid_until", validUntil));
            if (!from.isBefore(until)) {
                throw invalid("p_valid_from must be before p_valid_until, got " + from + " and " + until);
            }
            Optional<Package> stored = call.findPackage(packageId);
            if (stored.isPresent()) {
                call.facts.lessonPackage("PACKAGE_EXISTS", stored.get());
                return;
            }
            try {
                call.update(call.sql.insertPackage, call.tenant, packageId, student, credits, credits, from, until,
                        classTypes == null ? "" : classTypes, call.now);
            } catch (SQLException e) {
                if (!"23505".equals(e.getSQLState())) {
                    throw e;
                }
                // a concurrent grant of the same id was first
                call.facts.lessonPackage("PACKAGE_EXISTS", call.findPackage(packageId).orElseThrow(() ->
                        inconsistent("package '" + packageId + "' could be neither inserted nor found")));
                return;
            }
            call.update(call.sql.insertEntry, call.tenant, packageId, "GRANT", credits, null, null, call.now);
            call.facts.lessonPackage("GRANTED", call.findPackage(packageId).orElseThrow(() -> inconsistent(
                    "package '" + packageId + "' is missing after its insert")));
        });
    }

    /**
     * Checks a CONFIRMED booking in within [start - p_opens_before_micros, end + p_closes_after_micros):
     * CHECKED_IN (plus EV_CHECKED_IN), CHECKED_IN_REPLAY, NOT_CONFIRMED, CHECK_IN_NOT_OPEN, CHECK_IN_CLOSED,
     * INSUFFICIENT_CREDITS (AT_CHECK_IN, an unpaid cost and no package that can pay), NOT_FOUND. Under the
     * student's lock, then the seat row's, then the package's.
     */
    public static ResultSet checkIn(Connection connection, String prefix, String tenant, String bookingId,
                                    String student, OffsetDateTime now, Long opensBeforeMicros,
                                    Long closesAfterMicros, String creditPolicy) throws SQLException {
        return run(connection, prefix, tenant, now, call -> {
            required("p_booking", bookingId);
            boolean atCheckIn = "AT_CHECK_IN".equals(creditPolicy(creditPolicy));
            Facts facts = call.facts;
            Optional<Booking> found = call.findBooking(bookingId);
            if (found.isEmpty() || (student != null && !found.get().studentId().equals(student))) {
                facts.bare("NOT_FOUND");
                return;
            }
            call.lockResource("STUDENT", found.get().studentId());
            Booking b = call.lockSeatAndReread(found.get()).orElseThrow(() -> inconsistent(
                    "booking '" + bookingId + "' disappeared during check-in"));
            if (!"CONFIRMED".equals(b.status())) {
                facts.booking("NOT_CONFIRMED", b);
                return;
            }
            if ("CHECKED_IN".equals(b.attendance())) {
                facts.booking("CHECKED_IN_REPLAY", b);
                return;
            }
            Slot slot = call.findSlot(b.slotId()).orElseThrow(() -> inconsistent(
                    "slot '" + b.slotId() + "' of a booking is missing"));
            OffsetDateTime opens = slot.startsAt().minus(opensBeforeMicros == null ? 0 : opensBeforeMicros,
                    ChronoUnit.MICROS);
            OffsetDateTime closes = slot.endsAt().plus(closesAfterMicros == null ? 0 : closesAfterMicros,
                    ChronoUnit.MICROS);
            if ("NO_SHOW".equals(b.attendance()) || !call.now.isBefore(closes)) {
                facts.checkInWindow("CHECK_IN_CLOSED", bookingId, closes);
                return;
            }
            if (call.now.isBefore(opens)) {
                facts.checkInWindow("CHECK_IN_NOT_OPEN", bookingId, opens);
                return;
            }
            if (atCheckIn && slot.cost() > 0 && b.credits() == 0) {
                String payer = call.lockPayer(b.studentId(), slot);
                if (payer == null) {
                    facts.insufficient(slot.slotId(), slot.cost());
                    return;
                }
                call.charge(b, payer, slot.cost(), "DRAW");
            }
            if (call.update(call.sql.setAttendance, "CHECKED_IN", call.now, call.tenant, bookingId, "NONE") != 1) {
                throw inconsistent("booking '" + bookingId + "' changed under its seat's lock");
            }
            Booking checkedIn = call.reread(b);
            facts.booking("CHECKED_IN", checkedIn);
            facts.booking("EV_CHECKED_IN", checkedIn);
        });
    }

    /**
     * Schedules the occurrences of a series in order, each as schedule does (with series_id = p_series):
     * SCHEDULED or EXISTS, or CONFLICT rows with request_id = the occurrence's slot id. ALL_OR_NOTHING
     * with a conflict: every write of the call is undone, the rows answered stay.
     */
    public static ResultSet scheduleSeries(Connection connection, String prefix, String tenant, String seriesId,
                                           String mode, Long longestMicros, String occurrences) throws SQLException {
        return run(connection, prefix, tenant, null, call -> {
            required("p_series", seriesId);
            boolean allOrNothing = allOrNothing(mode);
            Savepoint undo = allOrNothing ? call.connection.setSavepoint() : null;
            boolean conflict = false;
            for (String[] f : records(occurrences, 16)) {
                call.occurrence = f[0];
                try {
                    conflict |= !scheduleOne(call, f[0], f[1], f[2], micros(f[3]), micros(f[4]), integer(f[5]),
                            longestMicros, micros(f[6]), micros(f[7]), integer(f[8]), emptyToNull(f[9]),
                            integer(f[10]), micros(f[11]), micros(f[12]), "1".equals(f[13]), emptyToNull(f[14]),
                            integer(f[15]), seriesId);
                } finally {
                    call.occurrence = null;
                }
            }
            if (undo != null) {
                if (conflict) {
                    call.connection.rollback(undo);
                } else {
                    call.connection.releaseSavepoint(undo);
                }
            }
        });
    }

    /**
     * Cancels, as cancel_slot does, every OPEN occurrence of the series starting at or after p_from, by
     * start then slot id: per occurrence SLOT_CANCELLED and its EV_CANCELLED rows.
     */
    public static ResultSet cancelSeries(Connection connection, String prefix, String tenant, String seriesId,
                                         OffsetDateTime from, OffsetDateTime now) throws SQLException {
        return run(connection, prefix, tenant, now, call -> {
            required("p_series", seriesId);
            OffsetDateTime after = utcMicros(required("p_from", from));
            for (String slotId : call.query(call.sql.openSeriesSlots, rs -> rs.getString(1), tenant, seriesId,
                    after)) {
                // a concurrent cancel may have been first: left out
                cancelSlotOne(call, slotId, false);
            }
        });
    }

    /**
     * Runs hold for each command in order, every row of command n (from 1) with capacity = n. ALL_OR_NOTHING
     * and a command that answers neither HELD nor a REPLAY of a live booking: every write of the call is
     * undone (the rows stay as answered).
     */
    public static ResultSet holdAll(Connection connection, String prefix, String tenant, String mode,
                                    String commands) throws SQLException {
        return run(connection, prefix, tenant, null, call -> {
            boolean allOrNothing = allOrNothing(mode);
            Savepoint undo = allOrNothing ? call.connection.setSavepoint() : null;
            boolean failed = false;
            int n = 0;
            for (String[] f : records(commands, 14)) {
                n++;
                Call one = new Call(call.connection, call.sql, call.tenant, clock(micros(f[5])), call.facts);
                call.facts.part = n;
                int before = call.facts.answers();
                try {
                    holdOne(one, f[0], f[1], f[2], f[3], f[4], "1".equals(f[8]), "1".equals(f[9]),
                            Terms.of(longOrNull(f[6]), longOrNull(f[7]), integer(f[10]), integer(f[11]),
                                    longOrNull(f[12]), emptyToNull(f[13])));
                } finally {
                    call.facts.part = null;
                }
                Object[] answer = call.facts.answerSince(before);
                boolean ok = answer != null && ("HELD".equals(answer[0]) || ("REPLAY".equals(answer[0])
                        && ("HELD".equals(answer[6]) || "CONFIRMED".equals(answer[6]))));
                failed |= !ok;
            }
            if (undo != null) {
                if (failed) {
                    call.connection.rollback(undo);
                    call.facts.undone = true;
                } else {
                    call.connection.releaseSavepoint(undo);
                }
            }
        });
    }

    private static boolean allOrNothing(String mode) throws SQLException {
        if (!"ALL_OR_NOTHING".equals(mode) && !"BEST_EFFORT".equals(mode)) {
            throw invalid("p_mode must be ALL_OR_NOTHING or BEST_EFFORT, got " + mode);
        }
        return "ALL_OR_NOTHING".equals(mode);
    }

    /** A credit policy: AT_BOOKING, AT_CHECK_IN or NULL (nothing drawn, a payer still required). */
    private static String creditPolicy(String policy) throws SQLException {
        if (policy != null && !"AT_BOOKING".equals(policy) && !"AT_CHECK_IN".equals(policy)) {
            throw invalid("p_credit_policy must be 'AT_BOOKING', 'AT_CHECK_IN' or NULL, got " + policy);
        }
        return policy;
    }

    /** Records separated by U+001E, fields by U+001F, each of {@code fields} fields. */
    private static List<String[]> records(String text, int fields) throws SQLException {
        List<String[]> out = new ArrayList<>();
        if (text == null || text.isEmpty()) {
            return out;
        }
        for (String record : text.split("\u001e", -1)) {
            String[] f = record.split("\u001f", -1);
            if (f.length != fields) {
                throw invalid("a record must have " + fields + " fields, got " + f.length + ": " + record);
            }
            out.add(f);
        }
        return out;
    }

    private static String emptyToNull(String field) {
        return field == null || field.isEmpty() ? null : field;
    }

    private static Integer integer(String field) throws SQLException {
        try {
            return field == null || field.isEmpty() ? null : Integer.valueOf(field);
        } catch (NumberFormatException e) {
            throw invalid("not an integer: '" + field + "'");
        }
    }

    private static Long longOrNull(String field) throws SQLException {
        try {
            return field == null || field.isEmpty() ? null : Long.valueOf(field);
        } catch (NumberFormatException e) {
            throw invalid("not an integer: '" + field + "'");
        }
    }

    /** An instant given as microseconds since the epoch; '' is NULL. */
    private static OffsetDateTime micros(String field) throws SQLException {
        Long micros = longOrNull(field);
        return micros == null ? null
                : Instant.EPOCH.plus(micros, ChronoUnit.MICROS).atOffset(ZoneOffset.UTC);
    }

    // ================================================================== one call

    @FunctionalInterface
    private interface Body {
        void run(Call call) throws SQLException;
    }

    /**
     * Runs a routine's body on the nested connection under a savepoint, so that a failure leaves
     * nothing behind; answers the fact rows. H2's column-list probe gets the columns only.
     */
    private static ResultSet run(Connection connection, String prefix, String tenant, OffsetDateTime now, Body body)
            throws SQLException {
        Facts facts = new Facts();
        if (COLUMN_LIST_URL.equals(connection.getMetaData().getURL())) {
            return facts.result;
        }
        Sql sql = sql(prefix);
        Call call = new Call(connection, sql, required("p_tenant", tenant), clock(now), facts);
        Savepoint savepoint = connection.setSavepoint();
        try {
            fenceCheck(call);
            body.run(call);
            if (!facts.undone) {
                OutboxWrites.write(connection, prefix, call.tenant, facts.events, call.now);
            }
        } catch (SQLException | RuntimeException | Error e) {
            try {
                connection.rollback(savepoint);
            } catch (SQLException | RuntimeException undo) {
                e.addSuppressed(undo);
            }
            throw e;
        } finally {
            call.prepared.release();
        }
        connection.releaseSavepoint(savepoint);
        return facts.done();
    }

    /**
     * Refuses (SQLSTATE SB002, see SqlErrors) a tenant this database does not serve: its tenant_fence row
     * is FENCED or MOVED (no row, or OWNED: served).
     */
    private static void fenceCheck(Call call) throws SQLException {
        List<String> fence = call.query(call.sql.fenceState, rs -> rs.getString(1) + " on this database (fence epoch "
                + rs.getLong(2) + ")", call.tenant);
        if (!fence.isEmpty() && !fence.get(0).startsWith("OWNED ")) {
            throw new SQLException("tenant " + call.tenant + " is " + fence.get(0) + ": call its current shard",
                    SqlErrors.FENCED);
        }
    }

    /**
     * The statements the routines run for {@code prefix}, by name (for plan checks; the routines
     * are the only callers that matter).
     */
    public static Map<String, String> statements(String prefix) throws SQLException {
        Sql sql = sql(prefix);
        Map<String, String> statements = new LinkedHashMap<>();
        for (java.lang.reflect.Field field : Sql.class.getDeclaredFields()) {
            try {
                statements.put(field.getName(), (String) field.get(sql));
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
        return statements;
    }

    private static Sql sql(String prefix) throws SQLException {
        Sql cached = prefix == null ? null : SQL.get(prefix);
        if (cached != null) {
            return cached;
        }
        try {
            Tables tables = new Tables(prefix);
            return SQL.computeIfAbsent(prefix, p -> new Sql(tables));
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage());
        }
    }

    /** p_now, or the JVM's clock (H2 is embedded), read once; UTC at microsecond precision. */
    private static OffsetDateTime clock(OffsetDateTime now) {
        return now != null ? utcMicros(now) : Instant.now().truncatedTo(ChronoUnit.MICROS).atOffset(ZoneOffset.UTC);
    }

    private static OffsetDateTime utcMicros(OffsetDateTime time) {
        return time.withOffsetSameInstant(ZoneOffset.UTC).truncatedTo(ChronoUnit.MICROS);
    }

    private static OffsetDateTime utcOrNull(OffsetDateTime time) {
        return time == null ? null : utcMicros(time);
    }

    /** The state of one routine call: its connection, statements, tenant, clock and answer. */
    private static final class Call {
        final Connection connection;
        final Prepared prepared;
        final Sql sql;
        final String tenant;
        final OffsetDateTime now;
        final Facts facts;
        /** The occurrence a series schedules now (its CONFLICT rows carry it as request_id); null otherwise. */
        String occurrence;
        /** Taken just before this call created a resource_lock row (a first use), else null. */
        Savepoint beforeNewLock;

        Call(Connection connection, Sql sql, String tenant, OffsetDateTime now, Facts facts) {
            this.connection = connection;
            this.prepared = Prepared.of(connection);
            this.sql = sql;
            this.tenant = tenant;
            this.now = now;
            this.facts = facts;
        }

        /**
         * Locks a resource_lock row, creating it on first use: a row this transaction inserted is its
         * own until it ends (another first use fails on the key: 90131 while this one runs, which the
         * caller's retry handles, or 23505 after).
         */
        void lockResource(String kind, String id) throws SQLException {
            if (query(sql.lockResource, rs -> rs.getString(1), tenant, kind, id).isEmpty()) {
                Savepoint before = connection.setSavepoint();
                try {
                    update(sql.createResource, tenant, kind, id);
                    beforeNewLock = before;
                    return;
                } catch (SQLException e) {
                    // two first uses at once: the other one created the row, which is all we need
                    if (!"23505".equals(e.getSQLState())) {
                        throw e;
                    }
                }
                if (query(sql.lockResource, rs -> rs.getString(1), tenant, kind, id).isEmpty()) {
                    throw inconsistent("resource_lock row " + kind + " '" + id + "' could not be created");
                }
            }
        }

        /** Takes back the resource_lock row this call created, if it did: an answer that writes nothing. */
        void undoNewLock() throws SQLException {
            if (beforeNewLock != null) {
                connection.rollback(beforeNewLock);
                beforeNewLock = null;
            }
        }

        Optional<Slot> findSlot(String slotId) throws SQLException {
            return first(query(sql.findSlot, Slot::read, tenant, slotId));
        }

        /** The slot, and whether its committed seats leave one to take (a free one, or a hold that ran out). */
        Optional<Probed> findSlotWithSeat(String slotId, String student) throws SQLException {
            return first(query(sql.findSlotWithSeat, rs -> new Probed(Slot.read(rs), rs.getInt(19) == 1,
                    rs.getString(20)), now, student, now, tenant, slotId));
        }

        /** Locks the slot row (slot before seats) and answers it as it is now. */
        Slot lockSlot(String slotId) throws SQLException {
            return first(query(sql.lockSlot, Slot::read, tenant, slotId)).orElseThrow(() -> inconsistent(
                    "slot '" + slotId + "' of a booking is missing"));
        }

        /** Inserts the slot row; false when a concurrent insert of the same id was first. */
        boolean insertSlot(Slot s) throws SQLException {
            try {
                update(sql.insertSlot, tenant, s.slotId(), s.coachId(), s.roomId(), s.startsAt(), s.endsAt(),
                        s.capacity(), s.opensAt(), s.closesAt(), s.bufferSeconds(), s.cancelPolicy(),
                        s.cancelCutoffSeconds(), s.weekStart(), s.weekEnd(), s.bufferStudents(), s.classType(),
                        s.cost(), s.seriesId());
                return true;
            } catch (SQLException e) {
                if ("23505".equals(e.getSQLState())) {
                    return false;
                }
                throw e;
            }
        }

        /** Active occupations of one coach or room overlapping [from, to), oldest start first. */
        List<Occupation> occupations(String kind, String id, OffsetDateTime from, OffsetDateTime to,
                                     OffsetDateTime lowest) throws SQLException {
            return query(sql.overlaps, Occupation::read, tenant, kind, id, to, from, lowest);
        }

        /**
         * Active occupations of the student overlapping the slot's student time (its session, and its
         * buffer when it applies to students), each with its booking.
         */
        List<Occupation> studentOccupations(String student, Slot slot, Terms terms) throws SQLException {
            // p_longest_micros covers the longest student occupation, buffer included
            OffsetDateTime lowest = slot.startsAt().minus(terms.longestMicros(), ChronoUnit.MICROS);
            return query(sql.studentOverlaps, Occupation::readWithBooking, tenant, student, slot.studentEnd(),
                    slot.startsAt(), lowest);
        }

        /** Whether the student has a live booking overlapping the slot's student time (a dead hold blocks nothing). */
        boolean hasLiveClash(String student, Slot slot, Terms terms) throws SQLException {
            for (Occupation o : studentOccupations(student, slot, terms)) {
                if (o.booking() == null || !o.booking().isDeadHold(now)) {
                    return true;
                }
            }
            return false;
        }

        /**
         * The limit the student has reached for {@code slot} (UPCOMING checked first, then WEEKLY against
         * the slot's week), counted over the student's live bookings; null when none.
         */
        String reachedLimit(String student, Slot slot, Terms terms) throws SQLException {
            if (terms.maxUpcoming() == 0 && terms.maxWeek() == 0) {
                return null;
            }
            // an upcoming occupation ends after now, so it starts after now - longest; a weekly one in the week
            OffsetDateTime lowest = now.minus(terms.longestMicros(), ChronoUnit.MICROS);
            if (slot.weekStart() != null && slot.weekStart().isBefore(lowest)) {
                lowest = slot.weekStart().minus(1, ChronoUnit.MICROS);
            }
            long[] counts = query(sql.liveCounts, rs -> new long[] {rs.getLong(1), rs.getLong(2)}, now,
                    slot.weekStart(), slot.weekEnd(), tenant, student, lowest, now).get(0);
            if (terms.maxUpcoming() > 0 && counts[0] >= terms.maxUpcoming()) {
                return "UPCOMING";
            }
            if (terms.maxWeek() > 0 && counts[1] >= terms.maxWeek()) {
                return "WEEKLY";
            }
            return null;
        }

        /** Answers LIMIT when the student has reached one; false when not. */
        boolean limitReached(String student, Slot slot, Terms terms) throws SQLException {
            String kind = reachedLimit(student, slot, terms);
            if (kind == null) {
                return false;
            }
            facts.limit(kind, "UPCOMING".equals(kind) ? terms.maxUpcoming() : terms.maxWeek());
            return true;
        }

        /** Answers REPLAY (the booking of this request) or WAITLISTED_REPLAY (its waitlist entry); false when none. */
        boolean replay(Request request) throws SQLException {
            if (request.booking().isPresent()) {
                facts.booking("REPLAY", request.booking().get());
                return true;
            }
            if (request.waiter().isPresent()) {
                facts.waiter("WAITLISTED_REPLAY", request.waiter().get(), position(request.waiter().get()));
                return true;
            }
            return false;
        }

        /** The booking and the waitlist entry of a request, read by one statement. */
        Request requestOf(String requestId) throws SQLException {
            return requestOf(requestId, null, null);
        }

        /**
         * The booking and the waitlist entry of a request and, with a slot and a student, the student's
         * HELD or CONFIRMED booking of the slot: one statement, each part read by its own index.
         */
        Request requestOf(String requestId, String slotId, String student) throws SQLException {
            Booking booking = null;
            Waiter waiter = null;
            Booking active = null;
            try (ResultSet rs = bind(sql.findRequest, tenant, requestId, tenant, requestId, tenant, slotId,
                    student).executeQuery()) {
                while (rs.next()) {
                    switch (rs.getInt(1)) {
                        case 1 -> booking = booking != null ? booking : Booking.read(rs, 2);
                        case 2 -> waiter = waiter != null ? waiter : Waiter.read(rs, 14);
                        default -> active = active != null ? active : Booking.read(rs, 2);
                    }
                }
            }
            return new Request(Optional.ofNullable(booking), Optional.ofNullable(waiter), Optional.ofNullable(active));
        }

        Optional<Waiter> findWaiter(String requestId) throws SQLException {
            return first(query(sql.findWaiter, Waiter::read, tenant, requestId));
        }

        /** The student's WAITING entry of the slot. */
        Optional<Waiter> waitingOf(String slotId, String student) throws SQLException {
            return first(query(sql.waitingOfStudent, Waiter::read, tenant, slotId, student));
        }

        boolean hasWaiting(String slotId) throws SQLException {
            return !query(sql.firstWaiting, rs -> rs.getLong(1), tenant, slotId).isEmpty();
        }

        /** 1 for the first WAITING entry of its slot; 0 when the entry is not waiting. */
        int position(Waiter w) throws SQLException {
            if (!"WAITING".equals(w.status())) {
                return 0;
            }
            return query(sql.waiterPosition, rs -> rs.getInt(1), tenant, w.slotId(), w.seq()).get(0);
        }

        void setWaiter(Waiter w, String status, String reason) throws SQLException {
            if (update(sql.setWaiter, status, reason, now, tenant, w.requestId()) != 1) {
                throw inconsistent("waitlist entry of request '" + w.requestId() + "' could not be updated");
            }
        }

        /**
         * Retires a dead hold: slot row locked first, then the seat freed through its row; EV_EXPIRED and
         * the seat offered to the slot's waiters. Empty when someone else was first.
         */
        Optional<Booking> retire(Booking dead, Terms terms) throws SQLException {
            if (!dead.isDeadHold(now)) {
                return Optional.empty();
            }
            return retire(dead, lockSlot(dead.slotId()), terms);
        }

        /** As {@link #retire(Booking, Terms)}, the slot row already locked. */
        Optional<Booking> retire(Booking dead, Slot slot, Terms terms) throws SQLException {
            Optional<Booking> expired = expire(dead);
            if (expired.isPresent()) {
                facts.booking("EV_EXPIRED", expired.get());
                promote(slot, terms);
            }
            return expired;
        }

        /**
         * A seat of {@code slot} was freed in this transaction (its slot row is locked): it goes to the
         * first WAITING waiter who can take it, those passed over SKIPPED with the reason. Only while the
         * slot is open and before its waitlist cutoff; nobody eligible: the seat stays FREE.
         */
        void promote(Slot slot, Terms terms) throws SQLException {
            if (!"OPEN".equals(slot.status()) || !now.isBefore(terms.promotionCutoff(slot))) {
                return;
            }
            long after = 0;
            while (true) {
                List<Waiter> page = query(sql.waitingOfSlot, Waiter::read, tenant, slot.slotId(), after);
                for (Waiter listed : page) {
                    after = listed.seq();
                    if (offer(slot, listed, terms)) {
                        return;
                    }
                }
                if (page.size() < CANDIDATES) {
                    return;
                }
            }
        }

        /** Offers the freed seat to one listed waiter: true when it took the seat, false when passed over. */
        private boolean offer(Slot slot, Waiter listed, Terms terms) throws SQLException {
            // the waiter's student lock (after the slot row: the one exception to the lock order)
            lockResource("STUDENT", listed.studentId());
            Optional<Waiter> locked = first(query(sql.lockWaiter, Waiter::read, tenant, listed.requestId()));
            if (locked.isEmpty() || !"WAITING".equals(locked.get().status())) {
                return false;
            }
            Waiter w = locked.get();
            String reason = null;
            if (findActive(slot.slotId(), w.studentId()).isPresent()) {
                reason = "ALREADY_BOOKED";
            } else if (hasLiveClash(w.studentId(), slot, terms)) {
                reason = "CONFLICT";
            } else if (reachedLimit(w.studentId(), slot, terms) != null) {
                reason = "LIMIT";
            }
            // a package that can pay: locked when it pays now, else only required
            String payer = null;
            if (reason == null && slot.cost() > 0) {
                payer = terms.atBooking() ? lockPayer(w.studentId(), slot) : payer(w.studentId(), slot);
                if (payer == null) {
                    reason = "NO_CREDITS";
                }
            }
            if (reason != null) {
                setWaiter(w, "SKIPPED", reason);
                facts.waiter("EV_SKIPPED", w.with("SKIPPED", reason), 0);
                return false;
            }
            OffsetDateTime heldUntil = now.plus(terms.holdMicros(), ChronoUnit.MICROS);
            Optional<Claim> seat = claimSeat(slot.slotId(), w.bookingId(), w.studentId(), "HELD", heldUntil,
                    Takeover.NEVER);
            if (seat.isEmpty()) {
                throw inconsistent("slot '" + slot.slotId() + "': a freed seat could not be given to a waiter");
            }
            Booking booking = Booking.fresh(w.bookingId(), w.requestId(), slot.slotId(), w.studentId(),
                    seat.get().seq(), "HELD", heldUntil, now);
            update(sql.insertBooking, tenant, booking.bookingId(), booking.requestId(), booking.slotId(),
                    booking.studentId(), booking.seat(), "HELD", heldUntil, now, now);
            update(sql.insertOccupation, tenant, "STUDENT", w.studentId(), slot.startsAt(), slot.studentEnd(),
                    slot.slotId(), w.bookingId());
            if (slot.cost() > 0 && terms.atBooking()) {
                booking = charge(booking, payer, slot.cost(), "DRAW");
            }
            setWaiter(w, "PROMOTED", null);
            facts.booking("EV_PROMOTED", booking);
            return true;
        }


        Optional<Booking> findBooking(String bookingId) throws SQLException {
            return first(query(sql.findBooking, Booking::read, tenant, bookingId));
        }


        /** The student's HELD or CONFIRMED booking of the slot. */
        Optional<Booking> findActive(String slotId, String student) throws SQLException {
            return first(query(sql.findActive, Booking::read, tenant, slotId, student));
        }

        /** The student's booking; empty when there is none or it is another student's. */
        Optional<Booking> findOwned(String bookingId, String student) throws SQLException {
            Optional<Booking> found = findBooking(bookingId);
            return found.isPresent() && found.get().studentId().equals(student) ? found : Optional.empty();
        }

        /** The booking, read again after its seat row was locked (seat before booking). */
        Optional<Booking> lockSeatAndReread(Booking b) throws SQLException {
            query(sql.lockSeat, rs -> rs.getInt(1), tenant, b.slotId(), b.seat());
            return findBooking(b.bookingId());
        }

        /** HELD and live → CONFIRMED through its seat row; false when the seat row says otherwise. */
        boolean confirmThroughSeat(Booking b) throws SQLException {
            if (update(sql.confirmSeat, tenant, b.slotId(), b.seat(), b.bookingId(), now) == 0) {
                return false;
            }
            setBookingStatus(sql.confirmBooking, b);
            return true;
        }

        /**
         * A hold that ran out ({@code held_until <= now}): seat FREE if the seat row still has it
         * HELD, booking EXPIRED, occupation released. The booking as it is now, or empty when someone
         * else (a sweeper, a takeover, a cancel) was first.
         */
        Optional<Booking> expire(Booking b) throws SQLException {
            if (!b.isDeadHold(now) || update(sql.freeDeadSeat, tenant, b.slotId(), b.seat(), b.bookingId()) == 0) {
                return Optional.empty();
            }
            refund(b);
            setBookingStatus(sql.expireBooking, b);
            update(sql.releaseBooking, tenant, b.bookingId());
            return Optional.of(reread(b));
        }

        /** The booking whose expired seat a claim took over: EXPIRED, occupation released. */
        Booking expireDisplaced(String bookingId) throws SQLException {
            Booking b = findBooking(bookingId).orElseThrow(() -> inconsistent(
                    "the displaced booking '" + bookingId + "' is missing"));
            refund(b);
            setBookingStatus(sql.expireBooking, b);
            update(sql.releaseBooking, tenant, bookingId);
            return reread(b);
        }

        /** The booking as stored now. */
        Booking reread(Booking b) throws SQLException {
            return findBooking(b.bookingId()).orElseThrow(() -> inconsistent(
                    "booking '" + b.bookingId() + "' is missing"));
        }

        // ------------------------------------------------------------------ credits

        Optional<Package> findPackage(String packageId) throws SQLException {
            return first(query(sql.findPackage, Package::read, tenant, packageId));
        }

        /** The student's packages that could pay for {@code slot} now, in payer order (read without a lock). */
        private List<String> payers(String student, Slot slot) throws SQLException {
            List<String> out = new ArrayList<>(2);
            for (Package p : query(sql.payerCandidates, Package::read, tenant, student, slot.cost(), slot.startsAt(),
                    slot.startsAt())) {
                if (p.covers(slot.classType())) {
                    out.add(p.packageId());
                }
            }
            return out;
        }

        /** The package that would pay for the student's seat in {@code slot}; null when none can (or it is free). */
        String payer(String student, Slot slot) throws SQLException {
            if (slot.cost() <= 0) {
                return null;
            }
            List<String> payers = payers(student, slot);
            if (payers.isEmpty() && refundDeadHolds(student)) {
                payers = payers(student, slot);
            }
            return payers.isEmpty() ? null : payers.get(0);
        }

        /**
         * Gives back the credits the student's dead holds (HELD, deadline passed, not swept yet) still hold,
         * each under its seat row's lock (as a sweeper or a takeover would, which may have been first and
         * refunded it); the holds stay for them to expire. Asked only when no package can pay. Whether
         * there was any such hold (its credit is back, by this call or the one that was first).
         */
        boolean refundDeadHolds(String student) throws SQLException {
            boolean any = false;
            for (Booking dead : query(sql.deadPaidHolds, Booking::read, tenant, student, now)) {
                Optional<Booking> locked = lockSeatAndReread(dead);
                if (locked.isPresent() && locked.get().isDeadHold(now) && locked.get().credits() > 0) {
                    refund(locked.get());
                }
                any = true;
            }
            return any;
        }

        /**
         * Locks the package that pays for the student's seat in {@code slot} and answers its id: the
         * candidates in payer order, each locked by key and checked again (a concurrent draw may have
         * emptied it); null when none can pay.
         */
        String lockPayer(String student, Slot slot) throws SQLException {
            if (slot.cost() <= 0) {
                return null;
            }
            for (int round = 0; round < 2; round++) {
                for (String candidate : payers(student, slot)) {
                    List<Integer> remaining = query(sql.lockPackage, rs -> rs.getInt(1), tenant, candidate);
                    if (!remaining.isEmpty() && remaining.get(0) >= slot.cost()) {
                        return candidate;
                    }
                }
                if (round > 0 || !refundDeadHolds(student)) {
                    return null;
                }
            }
            return null;
        }

        /**
         * Draws {@code cost} from package {@code packageId} (locked by the caller) for booking {@code b}:
         * remaining, the journal entry (DRAW or FORFEIT) and the booking's package and credits. The
         * booking as it is after.
         */
        Booking charge(Booking b, String packageId, int cost, String reason) throws SQLException {
            if (update(sql.drawPackage, cost, tenant, packageId, cost) != 1) {
                throw inconsistent("package '" + packageId + "' cannot pay " + cost + " credits under its lock");
            }
            update(sql.insertEntry, tenant, packageId, reason, -cost, b.bookingId(), b.requestId(), now);
            if (update(sql.setBookingCredits, packageId, cost, now, tenant, b.bookingId()) != 1) {
                throw inconsistent("booking '" + b.bookingId() + "' is missing while it is charged");
            }
            return reread(b);
        }

        /** Gives back the credits the booking holds, if any (REFUND): the package, the journal, the booking. */
        void refund(Booking given) throws SQLException {
            Booking b = reread(given);
            if (b.credits() <= 0 || b.packageId() == null) {
                return;
            }
            if (update(sql.refundPackage, b.credits(), tenant, b.packageId()) != 1) {
                throw inconsistent("package '" + b.packageId() + "' of booking '" + b.bookingId() + "' is missing");
            }
            update(sql.insertEntry, tenant, b.packageId(), "REFUND", b.credits(), b.bookingId(), b.requestId(), now);
            update(sql.setBookingCredits, null, 0, now, tenant, b.bookingId());
        }

        /**
         * What a late cancel by the student and a no-show cost under AT_CHECK_IN: a booking of a slot with a
         * cost that holds no credits draws them as a FORFEIT when a package can pay (else nothing).
         */
        void forfeit(Booking given, Slot slot, Terms terms) throws SQLException {
            if (!"AT_CHECK_IN".equals(terms.creditPolicy()) || slot.cost() <= 0) {
                return;
            }
            Booking b = reread(given);
            if (b.credits() > 0) {
                return;
            }
            String payer = lockPayer(b.studentId(), slot);
            if (payer != null) {
                charge(b, payer, slot.cost(), "FORFEIT");
            }
        }

        void setBookingStatus(String statement, Booking b) throws SQLException {
            if (update(statement, now, tenant, b.bookingId()) != 1) {
                throw inconsistent("the seat of booking '" + b.bookingId() + "' changed but the booking row did not");
            }
        }

        /**
         * Takes a seat: first without waiting for seats that other claims have locked, then, before
         * answering "no seat", once more waiting for them. A free seat, else, with {@code takeover}, the
         * seat of the oldest hold that ran out.
         */
        Optional<Claim> claimSeat(String slotId, String bookingId, String student, String status,
                                  OffsetDateTime heldUntil, Takeover allowed) throws SQLException {
            Takeover takeover = allowed.once();
            for (int round = 0; round < CLAIM_ROUNDS; round++) {
                Optional<Claim> taken = takeSeat(slotId, bookingId, student, status, heldUntil, true, takeover);
                if (taken.isEmpty()) {
                    taken = takeSeat(slotId, bookingId, student, status, heldUntil, false, takeover);
                    if (taken.isEmpty()) {
                        return taken;
                    }
                }
                if (taken.get().seq() > 0) {
                    return taken;
                }
            }
            throw inconsistent("could not claim a seat of slot '" + slotId + "': the seat rows kept changing");
        }

        /**
         * A free seat, else the oldest expired hold; a claim of seq 0 means "changed, try again".
         * H2 locks every row a {@code SELECT ... FOR UPDATE} reads before it applies the LIMIT, so the
         * candidates are read without a lock (a few at a time, in index order) and then locked one by
         * one by key, the condition checked again: a claim costs the same on a slot of 10 seats and on
         * one of 100,000.
         */
        private Optional<Claim> takeSeat(String slotId, String bookingId, String student, String status,
                                         OffsetDateTime heldUntil, boolean skipLocked, Takeover takeover)
                throws SQLException {
            int after = 0;
            boolean lost = false;
            for (int pass = 0; pass < CLAIM_ROUNDS; ) {
                List<Integer> candidates = query(sql.freeCandidates, rs -> rs.getInt(1), tenant, slotId, after);
                for (int seq : candidates) {
                    if (query(skipLocked ? sql.lockCandidateSkipLocked : sql.lockCandidateWaiting,
                            rs -> "FREE".equals(rs.getString(1)), tenant, slotId, seq).contains(Boolean.TRUE)) {
                        int taken = update(sql.takeFreeSeat, status, bookingId, student, heldUntil, tenant, slotId, seq);
                        return Optional.of(new Claim(taken == 1 ? seq : 0, null));
                    }
                    after = seq;
                    lost = true;
                }
                if (candidates.size() < CANDIDATES) {
                    if (skipLocked || !lost) {
                        break;
                    }
                    // a seat waited for was taken by the claim waited on, while one before it may have been
                    // freed meanwhile: read the free seats again from the start, until a read finds none
                    after = 0;
                    lost = false;
                    pass++;
                }
            }
            if (!takeover.allowed()) {
                return Optional.empty();
            }
            List<Claim> expired = query(sql.expiredCandidates, rs -> new Claim(rs.getInt(1), rs.getString(2)),
                    tenant, slotId, now);
            for (Claim seat : expired) {
                if (query(skipLocked ? sql.lockCandidateSkipLocked : sql.lockCandidateWaiting,
                        rs -> "HELD".equals(rs.getString(1)) && seat.displaced().equals(rs.getString(2)),
                        tenant, slotId, seat.seq()).contains(Boolean.TRUE)) {
                    int taken = update(sql.takeExpiredSeat, status, bookingId, student, heldUntil, tenant, slotId,
                            seat.seq(), seat.displaced());
                    return Optional.of(taken == 1 ? seat : new Claim(0, null));
                }
            }
            return Optional.empty();
        }

        int update(String statement, Object... args) throws SQLException {
            return bind(statement, args).executeUpdate();
        }

        <T> List<T> query(String statement, RowReader<T> reader, Object... args) throws SQLException {
            try (ResultSet rs = bind(statement, args).executeQuery()) {
                List<T> rows = new ArrayList<>();
                while (rs.next()) {
                    rows.add(reader.read(rs));
                }
                return rows;
            }
        }

        /** The session's prepared statement, every parameter bound (each call binds them all). */
        private PreparedStatement bind(String statement, Object... args) throws SQLException {
            PreparedStatement ps = prepared.get(connection, statement);
            for (int i = 0; i < args.length; i++) {
                ps.setObject(i + 1, args[i]);
            }
            return ps;
        }
    }

    /**
     * The prepared statements of one H2 session, by SQL text, most recently used last: a routine
     * prepares each of its statements once per session rather than once per call (H2's own query
     * cache keeps 8 commands per session, fewer than a hold runs, so it would parse them all again).
     * The nested connections H2 hands a routine are new objects over the same session, and a
     * statement prepared on one of them runs on the session, so it serves every later call; H2
     * recompiles it itself after a schema change. Only the session's own calls use it, one at a time.
     */
    private static final class Prepared {
        /** Enough for every statement of a few prefixes; the least recently used one is closed beyond. */
        private static final int LIMIT = 256;
        private static final Map<Session, Prepared> BY_SESSION = new ConcurrentHashMap<>();

        private final Map<String, PreparedStatement> statements = new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, PreparedStatement> eldest) {
                if (size() <= LIMIT) {
                    return false;
                }
                closeQuietly(eldest.getValue());
                return true;
            }
        };

        /** Whether the statements outlive the call (kept for the session) or close when it ends. */
        private final boolean kept;

        private Prepared(boolean kept) {
            this.kept = kept;
        }

        /** The statements of the connection's session; a connection that is not H2's own gets a set of its own. */
        static Prepared of(Connection connection) {
            if (!(connection instanceof JdbcConnection jdbc) || jdbc.getSession() == null) {
                return new Prepared(false);
            }
            Session session = jdbc.getSession();
            Prepared found = BY_SESSION.get(session);
            if (found != null) {
                return found;
            }
            // a new session: forget those closed since (their statements went with them)
            BY_SESSION.keySet().removeIf(Session::isClosed);
            return BY_SESSION.computeIfAbsent(session, s -> new Prepared(true));
        }

        PreparedStatement get(Connection connection, String sql) throws SQLException {
            PreparedStatement ps = statements.get(sql);
            if (ps == null || ps.isClosed()) {
                ps = connection.prepareStatement(sql);
                statements.put(sql, ps);
            }
            return ps;
        }

        /** The end of a call: a set of the call's own is closed. */
        void release() {
            if (!kept) {
                statements.values().forEach(Prepared::closeQuietly);
                statements.clear();
            }
        }

        private static void closeQuietly(PreparedStatement ps) {
            try {
                ps.close();
            } catch (SQLException ignored) {
                // the session is going away, and the statement with it
            }
        }
    }

    /**
     * Whether a claim may take the seat of a hold that ran out when no seat is free; asked only then,
     * and at most once per claim ({@link #once()}).
     */
    @FunctionalInterface
    private interface Takeover {
        Takeover NEVER = () -> false;

        boolean allowed() throws SQLException;

        /** This answer, asked the first time it is needed and kept. */
        default Takeover once() {
            if (this == NEVER) {
                return NEVER;
            }
            Boolean[] answer = new Boolean[1];
            return () -> {
                if (answer[0] == null) {
                    answer[0] = allowed();
                }
                return answer[0];
            };
        }
    }

    /** What is stored of one request: its booking, its waitlist entry, and the student's active booking of the slot. */
    private record Request(Optional<Booking> booking, Optional<Waiter> waiter, Optional<Booking> active) {
    }

    /** A slot, whether its committed seats leave one to take, and the student's live booking there (or null). */
    private record Probed(Slot slot, boolean seatToTake, String mine) {
    }

    @FunctionalInterface
    private interface RowReader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /** Seats a claim reads at a time before locking them one by one. */
    static final int CANDIDATES = 16;

    private static <T> Optional<T> first(List<T> rows) {
        return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
    }

    // ================================================================== rows

    /** Columns "a, b" as "x.a, x.b". */
    private static String prefixed(String alias, String columns) {
        StringBuilder out = new StringBuilder();
        for (String column : columns.split(",")) {
            out.append(out.length() == 0 ? "" : ", ").append(alias).append('.').append(column.trim());
        }
        return out.toString();
    }

    /** The columns a new booking is inserted with (package, credits and attendance take their defaults). */
    private static final String INSERT_BOOKING_COLUMNS =
            "booking_id, request_id, slot_id, student_id, seat, status, held_until, created_at, updated_at";
    private static final String BOOKING_COLUMNS = INSERT_BOOKING_COLUMNS + ", package_id, credits, attendance";
    private static final String SLOT_COLUMNS = "slot_id, coach_id, room_id, starts_at, ends_at, capacity, status,"
            + " opens_at, closes_at, buffer_seconds, cancel_policy, cancel_cutoff_seconds, week_start, week_end,"
            + " buffer_students, class_type, cost, series_id";
    private static final String PACKAGE_COLUMNS =
            "package_id, student_id, credits, remaining, valid_from, valid_until, class_types, granted_at";
    private static final String WAITER_COLUMNS =
            "request_id, slot_id, student_id, booking_id, seq, status, reason, joined_at";

    private record Booking(String bookingId, String requestId, String slotId, String studentId, int seat,
                           String status, OffsetDateTime heldUntil, OffsetDateTime createdAt,
                           OffsetDateTime updatedAt, String packageId, int credits, String attendance) {

        /** A booking as inserted: no credits, no attendance yet. */
        static Booking fresh(String bookingId, String requestId, String slotId, String studentId, int seat,
                             String status, OffsetDateTime heldUntil, OffsetDateTime now) {
            return new Booking(bookingId, requestId, slotId, studentId, seat, status, heldUntil, now, now, null, 0,
                    "NONE");
        }

        /** Reads {@link #BOOKING_COLUMNS} from the first column on. */
        static Booking read(ResultSet rs) throws SQLException {
            return read(rs, 1);
        }

        static Booking read(ResultSet rs, int from) throws SQLException {
            return new Booking(rs.getString(from), rs.getString(from + 1), rs.getString(from + 2),
                    rs.getString(from + 3), rs.getInt(from + 4), rs.getString(from + 5), time(rs, from + 6),
                    time(rs, from + 7), time(rs, from + 8), rs.getString(from + 9), rs.getInt(from + 10),
                    rs.getString(from + 11));
        }

        Booking with(String newStatus, OffsetDateTime now) {
            return new Booking(bookingId, requestId, slotId, studentId, seat, newStatus, heldUntil, createdAt, now,
                    packageId, credits, attendance);
        }

        boolean isActive() {
            return "HELD".equals(status) || "CONFIRMED".equals(status);
        }

        /** CONFIRMED, or HELD with {@code now < held_until}. */
        boolean isLive(OffsetDateTime now) {
            return "CONFIRMED".equals(status) || ("HELD".equals(status) && now.isBefore(heldUntil));
        }

        /** HELD with {@code held_until <= now}: a hold that blocks nothing any more. */
        boolean isDeadHold(OffsetDateTime now) {
            return "HELD".equals(status) && !now.isBefore(heldUntil);
        }
    }

    /**
     * {@link #SLOT_COLUMNS}; the rules: booking window, buffer (for the booked students too when
     * {@code bufferStudents}), cancel policy, the week the limits count in.
     */
    private record Slot(String slotId, String coachId, String roomId, OffsetDateTime startsAt, OffsetDateTime endsAt,
                        int capacity, String status, OffsetDateTime opensAt, OffsetDateTime closesAt,
                        int bufferSeconds, String cancelPolicy, Integer cancelCutoffSeconds,
                        OffsetDateTime weekStart, OffsetDateTime weekEnd, boolean bufferStudents, String classType,
                        int cost, String seriesId) {

        static Slot read(ResultSet rs) throws SQLException {
            int cutoff = rs.getInt(12);
            Integer cutoffSeconds = rs.wasNull() ? null : cutoff;
            return new Slot(rs.getString(1), rs.getString(2), rs.getString(3), time(rs, 4), time(rs, 5), rs.getInt(6),
                    rs.getString(7), time(rs, 8), time(rs, 9), rs.getInt(10), rs.getString(11), cutoffSeconds,
                    time(rs, 13), time(rs, 14), rs.getBoolean(15), rs.getString(16), rs.getInt(17), rs.getString(18));
        }

        /** The end of a booked student's time: the session's end, plus the buffer when it applies to students. */
        OffsetDateTime studentEnd() {
            return bufferStudents ? endsAt.plusSeconds(bufferSeconds) : endsAt;
        }
    }

    /** {@link #WAITER_COLUMNS}: a waitlist entry. */
    private record Waiter(String requestId, String slotId, String studentId, String bookingId, long seq,
                          String status, String reason, OffsetDateTime joinedAt) {

        static Waiter read(ResultSet rs) throws SQLException {
            return read(rs, 1);
        }

        static Waiter read(ResultSet rs, int from) throws SQLException {
            return new Waiter(rs.getString(from), rs.getString(from + 1), rs.getString(from + 2),
                    rs.getString(from + 3), rs.getLong(from + 4), rs.getString(from + 5), rs.getString(from + 6),
                    time(rs, from + 7));
        }

        Waiter with(String newStatus, String newReason) {
            return new Waiter(requestId, slotId, studentId, bookingId, seq, newStatus, newReason, joinedAt);
        }
    }

    /** What a freed seat's promotion and a hold's limits and credits need from the caller. */
    private record Terms(long holdMicros, long longestMicros, int maxUpcoming, int maxWeek, long cutoffMicros,
                         String creditPolicy) {

        static Terms of(Long holdMicros, Long longestMicros, Integer maxUpcoming, Integer maxWeek,
                        Long waitlistCutoffMicros, String creditPolicy) throws SQLException {
            return new Terms(positive("p_hold_micros", holdMicros), positive("p_longest_micros", longestMicros),
                    notNegative("p_max_upcoming", maxUpcoming), notNegative("p_max_week", maxWeek),
                    notNegative("p_waitlist_cutoff_micros", waitlistCutoffMicros), H2Routines.creditPolicy(creditPolicy));
        }

        /** Whether the step that gives a seat draws its cost. */
        boolean atBooking() {
            return "AT_BOOKING".equals(creditPolicy);
        }

        /** Waiters are promoted, and join, only before this instant. */
        OffsetDateTime promotionCutoff(Slot slot) {
            return slot.startsAt().minus(cutoffMicros, ChronoUnit.MICROS);
        }
    }

    /** An active occupation; {@code booking} is set for a student's occupation read with its booking. */
    private record Occupation(String kind, String resourceId, String slotId, String bookingId, OffsetDateTime startsAt,
                              OffsetDateTime endsAt, Booking booking) {

        static Occupation read(ResultSet rs) throws SQLException {
            return new Occupation(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), time(rs, 5),
                    time(rs, 6), null);
        }

        static Occupation readWithBooking(ResultSet rs) throws SQLException {
            Occupation o = read(rs);
            Booking b = rs.getString(7) == null ? null : Booking.read(rs, 7);
            return new Occupation(o.kind(), o.resourceId(), o.slotId(), o.bookingId(), o.startsAt(), o.endsAt(), b);
        }
    }

    /** {@link #PACKAGE_COLUMNS}: a lesson package. */
    private record Package(String packageId, String studentId, int credits, int remaining, OffsetDateTime validFrom,
                           OffsetDateTime validUntil, String classTypes, OffsetDateTime grantedAt) {

        static Package read(ResultSet rs) throws SQLException {
            return new Package(rs.getString(1), rs.getString(2), rs.getInt(3), rs.getInt(4), time(rs, 5), time(rs, 6),
                    rs.getString(7), time(rs, 8));
        }

        /** Whether it pays for a session of this class type ('' : any session). */
        boolean covers(String classType) {
            if (classTypes == null || classTypes.isEmpty()) {
                return true;
            }
            return classType != null && List.of(classTypes.split(",")).contains(classType);
        }
    }

    /** A seat taken (or, for a takeover candidate, to take); {@code displaced}: the expired hold's booking. */
    private record Claim(int seq, String displaced) {
    }

    private static OffsetDateTime time(ResultSet rs, int column) throws SQLException {
        OffsetDateTime value = rs.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.withOffsetSameInstant(ZoneOffset.UTC);
    }

    // ================================================================== the answer

    /** The fact rows: the contract's 20 columns, unused ones NULL. */
    private static final class Facts {
        final SimpleResultSet result = new SimpleResultSet();
        private final List<Object[]> answer = new ArrayList<>(2);
        final List<Object[]> events = new ArrayList<>(2);
        /** hold_all, all or nothing, failed: its writes were undone, and its events are not written. */
        boolean undone;
        /** hold_all: the 1-based index of the command whose rows are written now (its capacity column). */
        Integer part;

        Facts() {
            for (String column : FACT_COLUMNS) {
                switch (column) {
                    case "SEAT", "CAPACITY", "AMOUNT" -> result.addColumn(column, Types.INTEGER, 32, 0);
                    case "HELD_UNTIL", "CREATED_AT", "UPDATED_AT", "STARTS_AT", "ENDS_AT" ->
                            result.addColumn(column, Types.TIMESTAMP_WITH_TIMEZONE, 32, 6);
                    default -> result.addColumn(column, Types.VARCHAR, 64, 0);
                }
            }
        }

        /** The answer rows first, then the events in the order they happened. */
        ResultSet done() {
            answer.forEach(result::addRow);
            events.forEach(result::addRow);
            return result;
        }

        /** How many answer rows there are so far. */
        int answers() {
            return answer.size();
        }

        /** The first answer row written after the first {@code before}; null when none. */
        Object[] answerSince(int before) {
            return answer.size() > before ? answer.get(before) : null;
        }

        /** One row: the 17 columns before ref_id, then ref_id, amount, note. */
        private void add(Object[] row17, String refId, Integer amount, String note) {
            Object[] row = java.util.Arrays.copyOf(row17, 20);
            row[17] = refId;
            row[18] = amount;
            row[19] = note;
            if (part != null) {
                row[16] = part;
            }
            (((String) row[0]).startsWith("EV_") ? events : answer).add(row);
        }

        private void add(Object... row) {
            add(row, null, null, null);
        }

        /** A booking: ref_id = its package, amount = its credits, note = its attendance. */
        void booking(String tag, Booking b) {
            add(new Object[] {tag, b.bookingId(), b.requestId(), b.slotId(), b.studentId(), b.seat(), b.status(),
                    b.heldUntil(), b.createdAt(), b.updatedAt(), null, null, null, null, null, null, null},
                    b.packageId(), b.credits(), b.attendance());
        }

        void cancelled(Booking b, boolean late) {
            add(new Object[] {"CANCELLED", b.bookingId(), b.requestId(), b.slotId(), b.studentId(), b.seat(),
                    b.status(), b.heldUntil(), b.createdAt(), b.updatedAt(), late ? "LATE" : null, null, null, null,
                    null, null, null}, b.packageId(), b.credits(), b.attendance());
        }

        void conflict(Occupation o) {
            conflict(o, null);
        }

        /** An occupation in the way; {@code occurrence}: the series occurrence it blocks (request_id). */
        void conflict(Occupation o, String occurrence) {
            add("CONFLICT", o.bookingId(), occurrence, o.slotId(), null, null, null, null, null, null,
                    o.kind(), o.resourceId(), o.startsAt(), o.endsAt(), null, null, null);
        }

        /**
         * A slot and its rules: opens at, closes at, buffer seconds, cancel policy and cutoff seconds;
         * student_id = 'STUDENTS' when the buffer applies to booked students too; ref_id = class type,
         * amount = cost, note = series id.
         */
        void slot(String tag, Slot s) {
            add(new Object[] {tag, null, null, s.slotId(), s.bufferStudents() ? "STUDENTS" : null, s.bufferSeconds(),
                    s.status(), s.opensAt(), s.closesAt(), null, s.cancelPolicy(),
                    s.cancelCutoffSeconds() == null ? null : s.cancelCutoffSeconds().toString(), s.startsAt(),
                    s.endsAt(), s.coachId(), s.roomId(), s.capacity()}, s.classType(), s.cost(), s.seriesId());
        }

        /** A waitlist entry: seat = its position (0 when not waiting), created_at = joined at, res_kind = reason. */
        void waiter(String tag, Waiter w, int position) {
            add(tag, w.bookingId(), w.requestId(), w.slotId(), w.studentId(), position, w.status(), null,
                    w.joinedAt(), null, w.reason(), null, null, null, null, null, null);
        }

        /**
         * A package: ref_id = its id, student_id, capacity = credits, amount = remaining, starts_at/ends_at =
         * validity, res_id = class types, created_at = granted at.
         */
        void lessonPackage(String tag, Package p) {
            add(new Object[] {tag, null, null, null, p.studentId(), null, null, null, p.grantedAt(), null, null,
                    p.classTypes(), p.validFrom(), p.validUntil(), null, null, p.credits()}, p.packageId(),
                    p.remaining(), null);
        }

        void notOpen(Slot s) {
            add("NOT_OPEN", null, null, s.slotId(), null, null, s.status(), null, null, null, null, null,
                    null, null, null, null, null);
        }

        /** NOT_OPEN_YET, BOOKING_CLOSED, TOO_LATE: held_until = the instant. */
        void instant(String tag, OffsetDateTime at) {
            add(tag, null, null, null, null, null, null, at, null, null, null, null, null, null, null, null, null);
        }

        /** A student's cancel of a booking checked in or marked a no-show: TOO_LATE, held_until = the start. */
        void tooLate(String bookingId, OffsetDateTime start) {
            add("TOO_LATE", bookingId, null, null, null, null, null, start, null, null, null, null, null, null, null,
                    null, null);
        }

        /** CHECK_IN_NOT_OPEN, CHECK_IN_CLOSED: booking_id, held_until = when check-in opens or closed. */
        void checkInWindow(String tag, String bookingId, OffsetDateTime at) {
            add(tag, bookingId, null, null, null, null, null, at, null, null, null, null, null, null, null, null,
                    null);
        }

        /** No package of the student can pay: slot_id, seat = the slot's cost. */
        void insufficient(String slotId, int cost) {
            add("INSUFFICIENT_CREDITS", null, null, slotId, null, cost, null, null, null, null, null, null, null,
                    null, null, null, null);
        }

        void limit(String kind, int limit) {
            add("LIMIT", null, null, null, null, limit, null, null, null, null, kind, null, null, null, null, null,
                    null);
        }

        void bare(String tag) {
            add(tag, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
                    null, null);
        }
    }

    // ================================================================== failures

    private static <T> T required(String parameter, T value) throws SQLException {
        if (value == null) {
            throw invalid(parameter + " must not be NULL");
        }
        return value;
    }

    private static long positive(String parameter, Long value) throws SQLException {
        if (value == null || value <= 0) {
            throw invalid(parameter + " must be positive, got " + value);
        }
        return value;
    }

    private static int notNegative(String parameter, Integer value) throws SQLException {
        if (value == null || value < 0) {
            throw invalid(parameter + " must not be negative, got " + value);
        }
        return value;
    }

    private static long notNegative(String parameter, Long value) throws SQLException {
        if (value == null || value < 0) {
            throw invalid(parameter + " must not be negative, got " + value);
        }
        return value;
    }

    private static SQLException invalid(String message) {
        return new SQLException(message, INVALID_ARGUMENT);
    }

    private static SQLException inconsistent(String message) {
        return new SQLException("ledger rows disagree, nothing was changed: " + message, INCONSISTENT);
    }

    // ================================================================== the statements of one prefix

    /** Every statement of the routines for one table prefix, built once per prefix. */
    private static final class Sql {
        final String findSlot;
        final String insertSlot;
        final String insertSeats;
        final String insertOccupation;
        final String lockResource;
        final String createResource;
        final String overlaps;
        final String studentOverlaps;
        final String findSlotWithSeat;
        final String findBooking;
        final String findRequest;
        final String findActive;
        final String lockSeat;
        final String freeCandidates;
        final String expiredCandidates;
        final String lockCandidateSkipLocked;
        final String lockCandidateWaiting;
        final String takeFreeSeat;
        final String takeExpiredSeat;
        final String insertBooking;
        final String confirmSeat;
        final String freeSeatOfActive;
        final String freeDeadSeat;
        final String confirmBooking;
        final String cancelBooking;
        final String expireBooking;
        final String releaseBooking;
        final String releaseSlot;
        final String cancelSlot;
        final String closeSeats;
        final String activeBookingsOfSlot;
        final String cancelBookingsOfSlot;
        final String dueHolds;
        final String lockSlot;
        final String liveCounts;
        final String findWaiter;
        final String lockWaiter;
        final String waitingOfStudent;
        final String waitingOfSlot;
        final String firstWaiting;
        final String waiterPosition;
        final String setWaiter;
        final String insertWaiter;
        final String unattended;
        final String setAttendance;
        final String openSeriesSlots;
        final String findPackage;
        final String insertPackage;
        final String insertEntry;
        final String payerCandidates;
        final String lockPackage;
        final String drawPackage;
        final String refundPackage;
        final String setBookingCredits;
        final String deadPaidHolds;
        final String fenceState;

        Sql(Tables t) {
            String slot = t.slot();
            String seat = t.seat();
            String booking = t.booking();
            String occupancy = t.occupancy();
            String seatKey = " WHERE tenant_id = ? AND slot_id = ? AND seq = ?";
            String free = "status = 'FREE', booking_id = NULL, student_id = NULL, held_until = NULL";
            String take = "UPDATE " + seat + " SET status = ?, booking_id = ?, student_id = ?, held_until = ?" + seatKey;
            // by key only, so that H2 takes the primary key; the caller checks status and owner
            String lockCandidate = "SELECT status, booking_id FROM " + seat + seatKey + " FOR UPDATE";
            String setBooking = "UPDATE " + booking + " SET status = '%s', updated_at = ?"
                    + " WHERE tenant_id = ? AND booking_id = ? AND %s";
            String overlap = " AND o.active = TRUE AND o.starts_at < ? AND o.ends_at > ? AND o.starts_at > ?";

            fenceState = "SELECT state, epoch FROM " + t.tenantFence() + " WHERE tenant_id = ?";
            findSlot = "SELECT " + SLOT_COLUMNS + " FROM " + slot + " WHERE tenant_id = ? AND slot_id = ?";
            lockSlot = findSlot + " FOR UPDATE";
            insertSlot = "INSERT INTO " + slot + " (tenant_id, slot_id, coach_id, room_id, starts_at, ends_at, capacity,"
                    + " status, opens_at, closes_at, buffer_seconds, cancel_policy, cancel_cutoff_seconds, week_start,"
                    + " week_end, buffer_students, class_type, cost, series_id)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?, 'OPEN', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
            insertSeats = "INSERT INTO " + seat + " (tenant_id, slot_id, seq, status)"
                    + " SELECT CAST(? AS VARCHAR(64)), CAST(? AS VARCHAR(64)), CAST(X AS INTEGER), 'FREE'"
                    + " FROM SYSTEM_RANGE(1, CAST(? AS INTEGER))";
            insertOccupation = "INSERT INTO " + occupancy + " (tenant_id, resource_kind, resource_id, starts_at,"
                    + " ends_at, slot_id, booking_id, active) VALUES (?, ?, ?, ?, ?, ?, ?, TRUE)";
            lockResource = "SELECT resource_id FROM " + t.lock()
                    + " WHERE tenant_id = ? AND resource_kind = ? AND resource_id = ? FOR UPDATE";
            createResource = "INSERT INTO " + t.lock() + " (tenant_id, resource_kind, resource_id) VALUES (?, ?, ?)";
            overlaps = "SELECT o.resource_kind, o.resource_id, o.slot_id, o.booking_id, o.starts_at, o.ends_at FROM "
                    + occupancy + " o WHERE o.tenant_id = ? AND o.resource_kind = ? AND o.resource_id = ?" + overlap
                    + " ORDER BY o.starts_at";
            studentOverlaps = "SELECT o.resource_kind, o.resource_id, o.slot_id, o.booking_id, o.starts_at, o.ends_at,"
                    + " b.booking_id, b.request_id, b.slot_id, b.student_id, b.seat, b.status, b.held_until,"
                    + " b.created_at, b.updated_at, b.package_id, b.credits, b.attendance FROM " + occupancy + " o LEFT JOIN " + booking
                    + " b ON b.tenant_id = o.tenant_id AND b.booking_id = o.booking_id"
                    + " WHERE o.tenant_id = ? AND o.resource_kind = 'STUDENT' AND o.resource_id = ?" + overlap
                    + " ORDER BY o.starts_at";
            // the slot, then whether a seat is left: two EXISTS, each served by its own index (the free-seat
            // one, the held-by-deadline one), the second asked only when no seat is free (CASE keeps the
            // order, an OR H2 may turn round); the outer slot row is found by its key
            findSlotWithSeat = "SELECT " + prefixed("s", SLOT_COLUMNS) + ", CASE WHEN EXISTS (SELECT 1 FROM " + seat
                    + " f WHERE f.tenant_id = s.tenant_id AND f.slot_id = s.slot_id AND f.status = 'FREE') THEN 1"
                    + " WHEN EXISTS (SELECT 1 FROM " + seat + " h WHERE h.tenant_id = s.tenant_id"
                    + " AND h.slot_id = s.slot_id AND h.status = 'HELD' AND h.held_until <= ?) THEN 1 ELSE 0 END"
                    // the student's live booking there, in the same view as the seat left or not
                    + ", (SELECT MIN(m.booking_id) FROM " + booking + " m WHERE m.tenant_id = s.tenant_id"
                    + " AND m.slot_id = s.slot_id AND m.student_id = ? AND (m.status = 'CONFIRMED'"
                    + " OR (m.status = 'HELD' AND m.held_until > ?)))"
                    + " FROM " + slot + " s WHERE s.tenant_id = ? AND s.slot_id = ?";
            findBooking = "SELECT " + BOOKING_COLUMNS + " FROM " + booking + " WHERE tenant_id = ? AND booking_id = ?";
            // a request's booking (1), its waitlist entry (2), the student's active booking of the slot (3);
            // each part by its own index, the waitlist columns after the booking ones
            String noBooking = String.join(", ", java.util.Collections.nCopies(12, "NULL"));
            String noWaiter = String.join(", ", java.util.Collections.nCopies(8, "NULL"));
            findRequest = "SELECT 1, " + BOOKING_COLUMNS + ", " + noWaiter + " FROM " + booking
                    + " WHERE tenant_id = ? AND request_id = ?"
                    + " UNION ALL SELECT 2, " + noBooking + ", " + WAITER_COLUMNS + " FROM " + t.waiter()
                    + " WHERE tenant_id = ? AND request_id = ?"
                    + " UNION ALL SELECT 3, " + BOOKING_COLUMNS + ", " + noWaiter + " FROM " + booking
                    + " WHERE tenant_id = ? AND slot_id = ? AND student_id = ? AND status IN ('HELD', 'CONFIRMED')";
            findActive = "SELECT " + BOOKING_COLUMNS + " FROM " + booking + " WHERE tenant_id = ? AND slot_id = ?"
                    + " AND student_id = ? AND status IN ('HELD', 'CONFIRMED')";
            lockSeat = "SELECT seq FROM " + seat + seatKey + " FOR UPDATE";
            freeCandidates = "SELECT seq FROM " + seat
                    + " WHERE tenant_id = ? AND slot_id = ? AND status = 'FREE' AND seq > ?"
                    // every index column in ORDER BY: H2 then reads the index in order and stops at the
                    // LIMIT; ordered by seq alone it reads and sorts every free seat of the slot
                    + " ORDER BY tenant_id, slot_id, status, seq LIMIT "
                    + CANDIDATES;

            expiredCandidates = "SELECT seq, booking_id FROM " + seat
                    + " WHERE tenant_id = ? AND slot_id = ? AND status = 'HELD' AND held_until <= ?"
                    + " ORDER BY tenant_id, slot_id, status, held_until LIMIT " + CANDIDATES;
            lockCandidateWaiting = lockCandidate;
            lockCandidateSkipLocked = lockCandidate + " SKIP LOCKED";
            takeFreeSeat = take + " AND status = 'FREE'";
            // "and its hold ran out" is not repeated in SQL: a seat's held_until is its booking's, which
            // never changes, so the owner and status decide; and a range on held_until would steer H2
            // from the primary key to the held-seat index (more matched columns look cheaper to it)
            takeExpiredSeat = take + " AND status = 'HELD' AND booking_id = ?";
            insertBooking = "INSERT INTO " + booking + " (tenant_id, " + INSERT_BOOKING_COLUMNS
                    + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
            confirmSeat = "UPDATE " + seat + " SET status = 'CONFIRMED'" + seatKey
                    + " AND booking_id = ? AND status = 'HELD' AND held_until > ?";
            freeSeatOfActive = "UPDATE " + seat + " SET " + free + seatKey
                    + " AND booking_id = ? AND status IN ('HELD', 'CONFIRMED')";
            freeDeadSeat = "UPDATE " + seat + " SET " + free + seatKey + " AND booking_id = ? AND status = 'HELD'";
            confirmBooking = String.format(setBooking, "CONFIRMED", "status = 'HELD'");
            cancelBooking = "UPDATE " + booking + " SET status = 'CANCELLED', updated_at = ?, late_cancel = ?"
                    + " WHERE tenant_id = ? AND booking_id = ? AND status IN ('HELD', 'CONFIRMED')";
            expireBooking = String.format(setBooking, "EXPIRED", "status = 'HELD'");
            releaseBooking = "UPDATE " + occupancy + " SET active = FALSE"
                    + " WHERE tenant_id = ? AND booking_id = ? AND active = TRUE";
            releaseSlot = "UPDATE " + occupancy + " SET active = FALSE"
                    + " WHERE tenant_id = ? AND slot_id = ? AND active = TRUE";
            cancelSlot = "UPDATE " + slot + " SET status = 'CANCELLED'"
                    + " WHERE tenant_id = ? AND slot_id = ? AND status = 'OPEN'";
            closeSeats = "UPDATE " + seat + " SET status = 'CLOSED', booking_id = NULL, student_id = NULL,"
                    + " held_until = NULL WHERE tenant_id = ? AND slot_id = ? AND status <> 'CLOSED'";
            activeBookingsOfSlot = "SELECT " + BOOKING_COLUMNS + " FROM " + booking
                    + " WHERE tenant_id = ? AND slot_id = ? AND status IN ('HELD', 'CONFIRMED') ORDER BY seat";
            cancelBookingsOfSlot = "UPDATE " + booking + " SET status = 'CANCELLED', updated_at = ?"
                    + " WHERE tenant_id = ? AND slot_id = ? AND status IN ('HELD', 'CONFIRMED')";
            dueHolds = "SELECT " + BOOKING_COLUMNS + " FROM " + booking
                    + " WHERE tenant_id = ? AND status = 'HELD' AND held_until <= ? ORDER BY tenant_id, status, held_until LIMIT ?";
            String instant = "CAST(? AS TIMESTAMP(6) WITH TIME ZONE)";
            // the student's live bookings: those ending after now, those starting in the week; bounded from below
            liveCounts = "SELECT COUNT(CASE WHEN o.ends_at > " + instant + " THEN 1 END),"
                    + " COUNT(CASE WHEN o.starts_at >= " + instant + " AND o.starts_at < " + instant + " THEN 1 END)"
                    + " FROM " + occupancy + " o JOIN " + booking
                    + " b ON b.tenant_id = o.tenant_id AND b.booking_id = o.booking_id"
                    + " WHERE o.tenant_id = ? AND o.resource_kind = 'STUDENT' AND o.resource_id = ? AND o.active = TRUE"
                    + " AND o.starts_at > ? AND (b.status = 'CONFIRMED' OR (b.status = 'HELD' AND b.held_until > ?))";
            String waiter = t.waiter();
            findWaiter = "SELECT " + WAITER_COLUMNS + " FROM " + waiter + " WHERE tenant_id = ? AND request_id = ?";
            lockWaiter = findWaiter + " FOR UPDATE";
            waitingOfStudent = "SELECT " + WAITER_COLUMNS + " FROM " + waiter
                    + " WHERE tenant_id = ? AND slot_id = ? AND student_id = ? AND status = 'WAITING'";
            // every index column in ORDER BY, so H2 reads the index in order and stops at the LIMIT
            waitingOfSlot = "SELECT " + WAITER_COLUMNS + " FROM " + waiter
                    + " WHERE tenant_id = ? AND slot_id = ? AND status = 'WAITING' AND seq > ?"
                    + " ORDER BY tenant_id, slot_id, status, seq LIMIT " + CANDIDATES;
            firstWaiting = "SELECT seq FROM " + waiter + " WHERE tenant_id = ? AND slot_id = ? AND status = 'WAITING'"
                    + " ORDER BY tenant_id, slot_id, status, seq LIMIT 1";
            waiterPosition = "SELECT COUNT(*) FROM " + waiter
                    + " WHERE tenant_id = ? AND slot_id = ? AND status = 'WAITING' AND seq <= ?";
            setWaiter = "UPDATE " + waiter + " SET status = ?, reason = ?, updated_at = ?"
                    + " WHERE tenant_id = ? AND request_id = ?";
            // the CONFIRMED bookings not checked in whose check-in closed (slot end <= now - closes_after)
            unattended = "SELECT " + prefixed("b", BOOKING_COLUMNS) + " FROM " + booking + " b JOIN " + slot
                    + " s ON s.tenant_id = b.tenant_id AND s.slot_id = b.slot_id"
                    + " WHERE b.tenant_id = ? AND b.status = 'CONFIRMED' AND b.attendance = 'NONE' AND s.ends_at <= ?"
                    + " ORDER BY s.ends_at, CAST(b.booking_id AS VARBINARY) LIMIT ?";
            setAttendance = "UPDATE " + booking + " SET attendance = ?, updated_at = ?"
                    + " WHERE tenant_id = ? AND booking_id = ? AND status = 'CONFIRMED' AND attendance = ?";
            openSeriesSlots = "SELECT slot_id FROM " + slot + " WHERE tenant_id = ? AND series_id = ?"
                    + " AND status = 'OPEN' AND starts_at >= ? ORDER BY starts_at, CAST(slot_id AS VARBINARY)";
            String lessonPackage = t.lessonPackage();
            findPackage = "SELECT " + PACKAGE_COLUMNS + " FROM " + lessonPackage
                    + " WHERE tenant_id = ? AND package_id = ?";
            insertPackage = "INSERT INTO " + lessonPackage + " (tenant_id, " + PACKAGE_COLUMNS
                    + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";
            insertEntry = "INSERT INTO " + t.creditEntry() + " (tenant_id, package_id, reason, delta, booking_id,"
                    + " request_id, at) VALUES (?, ?, ?, ?, ?, ?, ?)";
            // in payer order: the earliest valid_until, then the lowest id (by code point, as on PostgreSQL and
            // MariaDB: H2 compares VARCHAR by UTF-16 unit, VARBINARY, the id's UTF-8 bytes, by code point); the
            // caller checks the class types
            payerCandidates = "SELECT " + PACKAGE_COLUMNS + " FROM " + lessonPackage
                    + " WHERE tenant_id = ? AND student_id = ? AND remaining >= ? AND valid_from <= ?"
                    + " AND valid_until > ? ORDER BY valid_until, CAST(package_id AS VARBINARY)";
            lockPackage = "SELECT remaining FROM " + lessonPackage + " WHERE tenant_id = ? AND package_id = ? FOR UPDATE";
            // the student's HELD bookings that ran out still holding credits: through his active occupations
            // (the student's index), each booking by its key
            deadPaidHolds = "SELECT " + prefixed("b", BOOKING_COLUMNS) + " FROM " + occupancy + " o JOIN " + booking
                    + " b ON b.tenant_id = o.tenant_id AND b.booking_id = o.booking_id"
                    + " WHERE o.tenant_id = ? AND o.resource_kind = 'STUDENT' AND o.resource_id = ? AND o.active = TRUE"
                    + " AND b.status = 'HELD' AND b.held_until <= ? AND b.credits > 0 ORDER BY b.booking_id";
            drawPackage = "UPDATE " + lessonPackage + " SET remaining = remaining - ?"
                    + " WHERE tenant_id = ? AND package_id = ? AND remaining >= ?";
            refundPackage = "UPDATE " + lessonPackage + " SET remaining = remaining + ?"
                    + " WHERE tenant_id = ? AND package_id = ?";
            setBookingCredits = "UPDATE " + booking + " SET package_id = ?, credits = ?, updated_at = ?"
                    + " WHERE tenant_id = ? AND booking_id = ?";
            insertWaiter = "INSERT INTO " + waiter + " (tenant_id, request_id, slot_id, student_id, booking_id, status,"
                    + " joined_at, updated_at) VALUES (?, ?, ?, ?, ?, 'WAITING', ?, ?)";
        }
    }
}
