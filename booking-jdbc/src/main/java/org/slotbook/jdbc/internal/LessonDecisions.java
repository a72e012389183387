package org.slotbook.jdbc.internal;

import static org.slotbook.jdbc.internal.Params.bindTerms;
import static org.slotbook.jdbc.internal.Params.inRange;
import static org.slotbook.jdbc.internal.Params.micros;
import static org.slotbook.jdbc.internal.Params.notNull;
import static org.slotbook.jdbc.internal.Params.unexpected;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.BookingId;
import org.slotbook.core.CheckInClosed;
import org.slotbook.core.CheckInNotOpen;
import org.slotbook.core.CheckInResult;
import org.slotbook.core.CheckedIn;
import org.slotbook.core.InsufficientCredits;
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.LeaveResult;
import org.slotbook.core.LeftWaitlist;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.NotConfirmed;
import org.slotbook.core.NotFound;
import org.slotbook.core.NotWaiting;
import org.slotbook.core.PackageGrant;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.BookingEvent;
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.core.spi.Terms;
import org.slotbook.jdbc.internal.Facts.Fact;

/**
 * The sweep and the decisions of lessons: {@code expire_due} (dead holds, no-shows), {@code check_in},
 * {@code leave_waitlist} and {@code grant_package}. See {@link Decisions} for the routines.
 */
final class LessonDecisions {
    private final StoreCore core;
    private final SqlDialect sql;
    private final String expireDue;
    private final String leaveWaitlist;
    private final String grantPackage;
    private final String checkIn;

    LessonDecisions(StoreCore core) {
        this.core = core;
        this.sql = core.sql();
        this.expireDue = sql.call("expire_due", 11);
        this.leaveWaitlist = sql.call("leave_waitlist", 4);
        this.grantPackage = sql.call("grant_package", 8);
        this.checkIn = sql.call("check_in", 7);
    }

    public StoreOutcome<Integer> expireDue(TenantId tenantId, @Nullable Instant now, int limit, Terms terms) {
        notNull("tenantId", tenantId);
        notNull("terms", terms);
        if (limit <= 0) {
            throw new InvalidInputException("limit must be positive, got " + limit);
        }
        inRange("now", now);
        Facts facts = core.run(tenantId, "expire due holds", expireDue, ps -> {
            int i = sql.bindPrefix(ps);
            ps.setString(i++, tenantId.value());
            sql.bindInstant(ps, i++, now);
            ps.setInt(i++, limit);
            i = bindTerms(ps, i, terms);
            ps.setBoolean(i++, terms.rules().marksNoShows());
            ps.setLong(i, micros(terms.rules().checkInClosesAfterEnd()));
        }, rs -> Facts.read(rs, sql, tenantId), false);
        List<BookingEvent> events = facts.events();
        int done = (int) events.stream()
                .filter(e -> e.kind() == BookingEvent.Kind.EXPIRED || e.kind() == BookingEvent.Kind.NO_SHOW).count();
        return new StoreOutcome<>(done, events, null, facts.skipped());
    }

    public StoreOutcome<LeaveResult> leaveWaitlist(TenantId tenantId, RequestId requestId, StudentId studentId,
                                                   @Nullable Instant now) {
        notNull("tenantId", tenantId);
        notNull("requestId", requestId);
        notNull("studentId", studentId);
        inRange("now", now);
        Facts facts = core.run(tenantId, "leave the waitlist of request " + requestId, leaveWaitlist, ps -> {
            int i = sql.bindPrefix(ps);
            ps.setString(i++, tenantId.value());
            ps.setString(i++, requestId.value());
            ps.setString(i++, studentId.value());
            sql.bindInstant(ps, i, now);
        }, rs -> Facts.read(rs, sql, tenantId), false);
        Fact answer = facts.answer("leave_waitlist");
        LeaveResult result = switch (answer.tag()) {
            case "LEFT" -> new LeftWaitlist(facts.waiter(answer));
            case "NOT_WAITING" -> new NotWaiting(facts.waiter(answer));
            case "NOT_FOUND" -> new NotFound();
            default -> throw unexpected("leave_waitlist", answer);
        };
        return StoreOutcome.of(result);
    }

    public StoreOutcome<CheckInResult> checkIn(TenantId tenantId, BookingId bookingId, @Nullable StudentId studentId,
                                               @Nullable Instant now, Terms terms) {
        notNull("tenantId", tenantId);
        notNull("bookingId", bookingId);
        notNull("terms", terms);
        inRange("now", now);
        Facts facts = core.run(tenantId, "check in booking " + bookingId, checkIn, ps -> {
            int i = sql.bindPrefix(ps);
            ps.setString(i++, tenantId.value());
            ps.setString(i++, bookingId.value());
            ps.setString(i++, studentId == null ? null : studentId.value());
            sql.bindInstant(ps, i++, now);
            ps.setLong(i++, micros(terms.rules().checkInOpensBefore()));
            ps.setLong(i++, micros(terms.rules().checkInClosesAfterEnd()));
            ps.setString(i, terms.rules().credits().name());
        }, rs -> Facts.read(rs, sql, tenantId), false);
        Fact answer = facts.answer("check_in");
        CheckInResult result = switch (answer.tag()) {
            case "CHECKED_IN" -> new CheckedIn(facts.booking(answer), false);
            case "CHECKED_IN_REPLAY" -> new CheckedIn(facts.booking(answer), true);
            case "NOT_CONFIRMED" -> new NotConfirmed(facts.booking(answer));
            case "CHECK_IN_NOT_OPEN" -> new CheckInNotOpen(bookingId, answer.heldUntil());
            case "CHECK_IN_CLOSED" -> new CheckInClosed(bookingId, answer.heldUntil());
            case "INSUFFICIENT_CREDITS" -> new InsufficientCredits(SlotId.of(answer.slotId()), answer.seat());
            case "NOT_FOUND" -> new NotFound();
            default -> throw unexpected("check_in", answer);
        };
        return StoreOutcome.of(result, facts.events());
    }

    public LessonPackage grantPackage(TenantId tenantId, PackageGrant grant, @Nullable Instant now) {
        notNull("tenantId", tenantId);
        notNull("grant", grant);
        inRange("now", now);
        Facts facts = core.run(tenantId, "grant package " + grant.packageId(), grantPackage, ps -> {
            int i = sql.bindPrefix(ps);
            ps.setString(i++, tenantId.value());
            ps.setString(i++, grant.packageId().value());
            ps.setString(i++, grant.studentId().value());
            ps.setInt(i++, grant.credits());
            sql.bindInstant(ps, i++, grant.validFrom());
            sql.bindInstant(ps, i++, grant.validUntil());
            ps.setString(i++, Facts.classTypes(grant.classTypes()));
            sql.bindInstant(ps, i, now);
        }, rs -> Facts.read(rs, sql, tenantId), false);
        Fact answer = facts.answer("grant_package");
        return switch (answer.tag()) {
            case "GRANTED", "PACKAGE_EXISTS" -> facts.lessonPackage(answer);
            default -> throw unexpected("grant_package", answer);
        };
    }
}
