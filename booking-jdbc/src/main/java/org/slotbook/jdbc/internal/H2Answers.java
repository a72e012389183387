package org.slotbook.jdbc.internal;

import java.sql.ResultSet;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.AlreadyBooked;
import org.slotbook.core.AlreadyCancelled;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingClosed;
import org.slotbook.core.CancellationPolicy;
import org.slotbook.core.Cancelled;
import org.slotbook.core.CheckInClosed;
import org.slotbook.core.CheckInNotOpen;
import org.slotbook.core.CheckedIn;
import org.slotbook.core.Confirmed;
import org.slotbook.core.Conflict;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldExpired;
import org.slotbook.core.InsufficientCredits;
import org.slotbook.core.LeftWaitlist;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.LimitReached;
import org.slotbook.core.NotConfirmed;
import org.slotbook.core.NotFound;
import org.slotbook.core.NotOpenYet;
import org.slotbook.core.NotWaiting;
import org.slotbook.core.ResourceConflict;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotCancelled;
import org.slotbook.core.SlotNotOpen;
import org.slotbook.core.TooLateToCancel;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.Waitlisted;
import org.slotbook.core.spi.BookingEvent;
import org.slotbook.core.spi.StoreOutcome;
import org.h2.tools.SimpleResultSet;

/**
 * The answer of an H2 routine: what the rules decided, written as the contract's fact rows
 * ({@link Facts}), the answer rows first, then the events in the order they happened (a waiter passed
 * over just before the promotion that passed it over).
 */
final class H2Answers {
    /** The contract's fact columns, in order. */
    static final List<String> FACT_COLUMNS = List.of("TAG", "BOOKING_ID", "REQUEST_ID", "SLOT_ID",
            "STUDENT_ID", "SEAT", "STATUS", "HELD_UNTIL", "CREATED_AT", "UPDATED_AT", "RES_KIND", "RES_ID",
            "STARTS_AT", "ENDS_AT", "COACH_ID", "ROOM_ID", "CAPACITY", "REF_ID", "AMOUNT", "NOTE");

    private final List<Object[]> answer = new ArrayList<>(2);
    private final List<Object[]> events = new ArrayList<>(2);

    /** The result set of the columns alone (H2's column-list probe). */
    static SimpleResultSet columns() {
        SimpleResultSet result = new SimpleResultSet();
        for (String column : FACT_COLUMNS) {
            switch (column) {
                case "SEAT", "CAPACITY", "AMOUNT" -> result.addColumn(column, Types.INTEGER, 32, 0);
                case "HELD_UNTIL", "CREATED_AT", "UPDATED_AT", "STARTS_AT", "ENDS_AT" ->
                        result.addColumn(column, Types.TIMESTAMP_WITH_TIMEZONE, 32, 6);
                default -> result.addColumn(column, Types.VARCHAR, 64, 0);
            }
        }
        return result;
    }

    /** The rows written so far. */
    ResultSet done() {
        SimpleResultSet result = columns();
        answer.forEach(result::addRow);
        events.forEach(result::addRow);
        return result;
    }

    /** How many answer rows there are so far. */
    int answers() {
        return answer.size();
    }

    /** Sets the capacity column of the answer rows from {@code since} on: hold_all's command index. */
    void part(int since, int index) {
        for (int i = since; i < answer.size(); i++) {
            answer.get(i)[16] = index;
        }
    }

    /**
     * Sets the capacity column of the events (hold_all): the index of the command whose request the
     * event's booking has, else of the next such event (a dead hold retired on the way), else the last.
     */
    void partEvents(List<String> requestIds) {
        int from = 0;
        for (int i = 0; i < events.size(); i++) {
            int index = requestIds.indexOf((String) events.get(i)[2]) + 1;
            if (index > 0 || i == events.size() - 1) {
                for (int k = from; k <= i; k++) {
                    events.get(k)[16] = index > 0 ? index : requestIds.size();
                }
                from = i + 1;
            }
        }
    }

    /** A row: the tag, then the columns after it in order (those left out are NULL). */
    private Object[] add(Object... columns) {
        Object[] row = Arrays.copyOf(columns, 20);
        (((String) row[0]).startsWith("EV_") ? events : answer).add(row);
        return row;
    }

    // ---------------------------------------------------------------- outcomes

    /** The events and the waiters passed over of an outcome. */
    H2Answers events(StoreOutcome<?> outcome) {
        List<WaitlistEntry> skipped = new ArrayList<>(outcome.skipped());
        for (BookingEvent e : outcome.events()) {
            if (e.kind() == BookingEvent.Kind.PROMOTED) {
                skipped.removeIf(w -> w.slotId().equals(e.booking().slotId()) && skippedRow(w));
            }
            booking("EV_" + e.kind().name(), e.booking());
        }
        skipped.forEach(this::skippedRow);
        return this;
    }

    private boolean skippedRow(WaitlistEntry w) {
        waiter("EV_SKIPPED", w);
        return true;
    }

    /**
     * The answer of a decision: a hold's, or that of confirm, cancel, cancel_slot, check_in or
     * leave_waitlist; {@code subject}: the booking of a cancel's ALREADY_CANCELLED.
     */
    void answer(Object result, @Nullable Booking subject) {
        if (result instanceof Held h) {
            booking(h.replayed() ? "REPLAY" : "HELD", h.booking());
        } else if (result instanceof AlreadyBooked a) {
            booking("ALREADY", a.existing());
        } else if (result instanceof Conflict c) {
            conflicts(c.conflicts(), null);
        } else if (result instanceof Full) {
            add("FULL");
        } else if (result instanceof Waitlisted w) {
            waiter(w.replayed() ? "WAITLISTED_REPLAY" : "WAITLISTED", w.entry());
        } else if (result instanceof LimitReached l) {
            add("LIMIT", null, null, null, null, l.max(), null, null, null, null, l.limit().name());
        } else if (result instanceof NotOpenYet n) {
            add("NOT_OPEN_YET", null, null, null, null, null, null, at(n.opensAt()));
        } else if (result instanceof BookingClosed b) {
            add("BOOKING_CLOSED", null, null, null, null, null, null, at(b.closesAt()));
        } else if (result instanceof SlotNotOpen n) {
            add("NOT_OPEN", null, null, n.slotId().value(), null, null, n.status().name());
        } else if (result instanceof InsufficientCredits i) {
            add("INSUFFICIENT_CREDITS", null, null, i.slotId().value(), null, i.cost());
        } else if (result instanceof Confirmed c) {
            booking("CONFIRMED", c.booking());
        } else if (result instanceof HoldExpired h) {
            booking("HOLD_EXPIRED", h.booking());
        } else if (result instanceof Cancelled c) {
            booking("CANCELLED", c.booking())[10] = c.late() ? "LATE" : null;
        } else if (result instanceof AlreadyCancelled) {
            if (subject == null) {
                add("ALREADY_CANCELLED");
            } else {
                booking("ALREADY_CANCELLED", subject);
            }
        } else if (result instanceof TooLateToCancel t) {
            add("TOO_LATE", null, null, null, null, null, null, at(t.cutoff()));
        } else if (result instanceof SlotCancelled s) {
            slot("SLOT_CANCELLED", s.slot());
        } else if (result instanceof CheckedIn c) {
            booking(c.replayed() ? "CHECKED_IN_REPLAY" : "CHECKED_IN", c.booking());
        } else if (result instanceof NotConfirmed n) {
            booking("NOT_CONFIRMED", n.booking());
        } else if (result instanceof CheckInNotOpen n) {
            add("CHECK_IN_NOT_OPEN", n.bookingId().value(), null, null, null, null, null, at(n.opensAt()));
        } else if (result instanceof CheckInClosed c) {
            add("CHECK_IN_CLOSED", c.bookingId().value(), null, null, null, null, null, at(c.closedAt()));
        } else if (result instanceof LeftWaitlist l) {
            waiter("LEFT", l.entry());
        } else if (result instanceof NotWaiting n) {
            waiter("NOT_WAITING", n.entry());
        } else if (result instanceof NotFound) {
            add("NOT_FOUND");
        } else {
            throw new IllegalStateException("no fact row for " + result);
        }
    }

    // ---------------------------------------------------------------- rows

    /** A booking: ref_id = its package, amount = its credits, note = its attendance. */
    Object[] booking(String tag, Booking b) {
        return add(tag, b.bookingId().value(), b.requestId().value(), b.slotId().value(), b.studentId().value(),
                b.seat(), b.status().name(), at(b.heldUntil()), at(b.createdAt()), at(b.updatedAt()), null, null, null,
                null, null, null, null, b.packageId() == null ? null : b.packageId().value(), b.credits(),
                b.attendance().name());
    }

    /** Occupations in the way; {@code occurrence}: the series occurrence they block (request_id). */
    void conflicts(List<ResourceConflict> conflicts, @Nullable String occurrence) {
        for (ResourceConflict c : conflicts) {
            add("CONFLICT", c.bookingId().map(id -> id.value()).orElse(null), occurrence, c.slotId().value(), null,
                    null, null, null, null, null, c.resource().kind().name(), c.resource().id(), at(c.time().start()),
                    at(c.time().end()));
        }
    }

    /**
     * A slot and its rules: held_until = opens at, created_at = closes at, seat = buffer seconds, res_kind and
     * res_id = cancel policy and cutoff seconds, student_id = 'STUDENTS' when the buffer applies to booked
     * students; ref_id = class type, amount = cost, note = series id.
     */
    void slot(String tag, Slot s) {
        CancellationPolicy policy = s.cancellation();
        add(tag, null, null, s.slotId().value(), s.bufferStudents() ? "STUDENTS" : null, (int) s.buffer().toSeconds(),
                s.status().name(), at(s.opensAt()), at(s.closesAt()), null, Facts.policyName(policy),
                policy == null || policy.cutoff() == null ? null : Long.toString(policy.cutoff().toSeconds()),
                at(s.time().start()), at(s.time().end()), s.coachId().value(), s.roomId().value(), s.capacity(),
                s.classType(), s.cost(), s.seriesId() == null ? null : s.seriesId().value());
    }

    /** A waitlist entry: seat = its position (0 when not waiting), created_at = joined at, res_kind = reason. */
    void waiter(String tag, WaitlistEntry w) {
        add(tag, w.bookingId().value(), w.requestId().value(), w.slotId().value(), w.studentId().value(),
                w.status() == WaitlistEntry.Status.WAITING ? w.position() : 0, w.status().name(), null,
                at(w.joinedAt()), null, w.reason() == null ? null : w.reason().name());
    }

    /**
     * A package: ref_id = its id, student_id, capacity = credits, amount = remaining, starts_at/ends_at =
     * validity, res_id = class types, created_at = granted at.
     */
    void lessonPackage(String tag, LessonPackage p) {
        add(tag, null, null, null, p.studentId().value(), null, null, null, at(p.grantedAt()), null, null,
                Facts.classTypes(p.classTypes()), at(p.validFrom()), at(p.validUntil()), null, null, p.credits(),
                p.packageId().value(), p.remaining());
    }

    private static @Nullable OffsetDateTime at(@Nullable Instant instant) {
        return H2Sql.at(instant);
    }
}
