package org.slotbook.jdbc.internal;

import static org.slotbook.jdbc.internal.Params.bindTerms;
import static org.slotbook.jdbc.internal.Params.inRange;
import static org.slotbook.jdbc.internal.Params.micros;
import static org.slotbook.jdbc.internal.Params.notNull;
import static org.slotbook.jdbc.internal.Params.unexpected;

import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.AlreadyCancelled;
import org.slotbook.core.BookingId;
import org.slotbook.core.CancelResult;
import org.slotbook.core.CancelSlotResult;
import org.slotbook.core.CancellationPolicy;
import org.slotbook.core.Cancelled;
import org.slotbook.core.ConfirmResult;
import org.slotbook.core.Confirmed;
import org.slotbook.core.HoldExpired;
import org.slotbook.core.NotFound;
import org.slotbook.core.SeriesCancelled;
import org.slotbook.core.SeriesId;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotCancelled;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TooLateToCancel;
import org.slotbook.core.spi.BookingEvent;
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.core.spi.Terms;
import org.slotbook.jdbc.internal.Facts.Fact;

/**
 * The decisions that move a booking or end slots: {@code confirm}, {@code cancel}, {@code cancel_slot}
 * and {@code cancel_series}. See {@link Decisions} for the routines.
 */
final class CancelDecisions {
    private final StoreCore core;
    private final SqlDialect sql;
    private final String confirm;
    private final String cancel;
    private final String cancelSlot;
    private final String cancelSeries;

    CancelDecisions(StoreCore core) {
        this.core = core;
        this.sql = core.sql();
        this.confirm = sql.call("confirm", 10);
        this.cancel = sql.call("cancel", 12);
        this.cancelSlot = sql.call("cancel_slot", 3);
        this.cancelSeries = sql.call("cancel_series", 4);
    }

    public StoreOutcome<ConfirmResult> confirm(TenantId tenantId, BookingId bookingId, StudentId studentId,
                                               @Nullable Instant now, Terms terms) {
        notNull("studentId", studentId);
        Facts facts = transition("confirm", confirm, tenantId, bookingId, studentId, now, terms, false);
        Fact answer = facts.answer("confirm");
        ConfirmResult result = switch (answer.tag()) {
            case "CONFIRMED" -> new Confirmed(facts.booking(answer));
            case "HOLD_EXPIRED" -> new HoldExpired(facts.booking(answer));
            case "ALREADY_CANCELLED" -> new AlreadyCancelled();
            case "NOT_FOUND" -> new NotFound();
            default -> throw unexpected("confirm", answer);
        };
        return new StoreOutcome<>(result, facts.events(), null, facts.skipped());
    }

    public StoreOutcome<CancelResult> cancel(TenantId tenantId, BookingId bookingId, @Nullable StudentId studentId,
                                             @Nullable Instant now, Terms terms) {
        Facts facts = transition("cancel", cancel, tenantId, bookingId, studentId, now, terms, true);
        Fact answer = facts.answer("cancel");
        return switch (answer.tag()) {
            case "CANCELLED" -> new StoreOutcome<>(new Cancelled(facts.booking(answer), "LATE".equals(answer.resKind())),
                    facts.events(), null, facts.skipped());
            case "ALREADY_CANCELLED" -> new StoreOutcome<>(new AlreadyCancelled(), facts.events(),
                    facts.booking(answer), facts.skipped());
            case "TOO_LATE" -> StoreOutcome.of(new TooLateToCancel(bookingId, answer.heldUntil()));
            case "NOT_FOUND" -> StoreOutcome.of(new NotFound());
            default -> throw unexpected("cancel", answer);
        };
    }

    /**
     * Binds a confirm or cancel: tenant, booking, student (null: staff), now, [cancel policy, cutoff
     * micros,] then the promotion terms (hold micros, longest micros, max upcoming, max per week,
     * waitlist cutoff micros).
     */
    private Facts transition(String verb, String statement, TenantId tenantId, BookingId bookingId,
                             StudentId studentId, Instant now, Terms terms, boolean withPolicy) {
        notNull("tenantId", tenantId);
        notNull("bookingId", bookingId);
        notNull("terms", terms);
        inRange("now", now);
        return core.run(tenantId, verb + " booking " + bookingId, statement, ps -> {
            int i = sql.bindPrefix(ps);
            ps.setString(i++, tenantId.value());
            ps.setString(i++, bookingId.value());
            ps.setString(i++, studentId == null ? null : studentId.value());
            sql.bindInstant(ps, i++, now);
            if (withPolicy) {
                CancellationPolicy policy = terms.rules().cancellation();
                ps.setString(i++, Facts.policyName(policy));
                if (policy.cutoff() == null) {
                    ps.setNull(i++, Types.BIGINT);
                } else {
                    ps.setLong(i++, micros(policy.cutoff()));
                }
            }
            bindTerms(ps, i, terms);
        }, rs -> Facts.read(rs, sql, tenantId), false);
    }

    public StoreOutcome<CancelSlotResult> cancelSlot(TenantId tenantId, SlotId slotId, @Nullable Instant now) {
        notNull("tenantId", tenantId);
        notNull("slotId", slotId);
        inRange("now", now);
        Facts facts = core.run(tenantId, "cancel slot " + slotId, cancelSlot, ps -> {
            int i = sql.bindPrefix(ps);
            ps.setString(i++, tenantId.value());
            ps.setString(i++, slotId.value());
            sql.bindInstant(ps, i, now);
        }, rs -> Facts.read(rs, sql, tenantId), false);
        Fact answer = facts.answer("cancel_slot");
        return switch (answer.tag()) {
            case "SLOT_CANCELLED" -> {
                List<BookingEvent> events = facts.events();
                yield StoreOutcome.of(new SlotCancelled(facts.slot(answer), events.size()), events);
            }
            case "ALREADY_CANCELLED" -> StoreOutcome.of(new AlreadyCancelled());
            case "NOT_FOUND" -> StoreOutcome.of(new NotFound());
            default -> throw unexpected("cancel_slot", answer);
        };
    }

    public StoreOutcome<SeriesCancelled> cancelSeries(TenantId tenantId, SeriesId seriesId, Instant from,
                                                      @Nullable Instant now) {
        notNull("tenantId", tenantId);
        notNull("seriesId", seriesId);
        inRange("from", notNull("from", from));
        inRange("now", now);
        Facts facts = core.run(tenantId, "cancel series " + seriesId, cancelSeries, ps -> {
            int i = sql.bindPrefix(ps);
            ps.setString(i++, tenantId.value());
            ps.setString(i++, seriesId.value());
            sql.bindInstant(ps, i++, from);
            sql.bindInstant(ps, i, now);
        }, rs -> Facts.read(rs, sql, tenantId), false);
        List<Slot> slots = new ArrayList<>();
        for (Fact f : facts.rows()) {
            if ("SLOT_CANCELLED".equals(f.tag())) {
                slots.add(facts.slot(f));
            }
        }
        List<BookingEvent> events = facts.events();
        int released = (int) events.stream().filter(e -> e.kind() == BookingEvent.Kind.CANCELLED).count();
        return StoreOutcome.of(new SeriesCancelled(seriesId, slots, released), events);
    }
}
