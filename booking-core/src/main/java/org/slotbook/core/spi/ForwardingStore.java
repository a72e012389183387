package org.slotbook.core.spi;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.Availability;
import org.slotbook.core.BookedSession;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.CancelResult;
import org.slotbook.core.CancelSlotResult;
import org.slotbook.core.CheckInResult;
import org.slotbook.core.ConfirmResult;
import org.slotbook.core.CreditEntry;
import org.slotbook.core.HoldResult;
import org.slotbook.core.LeaveResult;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.PackageGrant;
import org.slotbook.core.PackageId;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.SeriesCancelled;
import org.slotbook.core.SeriesId;
import org.slotbook.core.SeriesMode;
import org.slotbook.core.SeriesResult;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.WaitlistEntry;

/**
 * A store that forwards every call to {@link #delegate()}: the base of a store that wraps another
 * (a decorator that counts, logs or injects faults overrides the calls it changes) and of a store
 * whose rules live in an object of its own.
 */
public abstract class ForwardingStore implements BookingStore {

    /** {@return the store every call goes to} */
    protected abstract BookingStore delegate();

    @Override
    public ScheduleResult schedule(TenantId tenantId, Slot slot, Duration longestSession, ZoneId weekZone) {
        return delegate().schedule(tenantId, slot, longestSession, weekZone);
    }

    @Override
    public StoreOutcome<HoldResult> hold(TenantId tenantId, HoldCommand command) {
        return delegate().hold(tenantId, command);
    }

    @Override
    public StoreOutcome<ConfirmResult> confirm(TenantId tenantId, BookingId bookingId, StudentId studentId,
                                               @Nullable Instant now, Terms terms) {
        return delegate().confirm(tenantId, bookingId, studentId, now, terms);
    }

    @Override
    public StoreOutcome<CancelResult> cancel(TenantId tenantId, BookingId bookingId, @Nullable StudentId studentId,
                                             @Nullable Instant now, Terms terms) {
        return delegate().cancel(tenantId, bookingId, studentId, now, terms);
    }

    @Override
    public StoreOutcome<CancelSlotResult> cancelSlot(TenantId tenantId, SlotId slotId, @Nullable Instant now) {
        return delegate().cancelSlot(tenantId, slotId, now);
    }

    @Override
    public StoreOutcome<Integer> expireDue(TenantId tenantId, @Nullable Instant now, int limit, Terms terms) {
        return delegate().expireDue(tenantId, now, limit, terms);
    }

    @Override
    public StoreOutcome<LeaveResult> leaveWaitlist(TenantId tenantId, RequestId requestId, StudentId studentId,
                                                   @Nullable Instant now) {
        return delegate().leaveWaitlist(tenantId, requestId, studentId, now);
    }

    @Override
    public Optional<WaitlistEntry> findWaiter(TenantId tenantId, RequestId requestId) {
        return delegate().findWaiter(tenantId, requestId);
    }

    @Override
    public List<WaitlistEntry> waitlist(TenantId tenantId, SlotId slotId, int offset, int limit) {
        return delegate().waitlist(tenantId, slotId, offset, limit);
    }

    @Override
    public List<Booking> roster(TenantId tenantId, SlotId slotId, @Nullable Instant now, int offset, int limit) {
        return delegate().roster(tenantId, slotId, now, offset, limit);
    }

    @Override
    public List<BookedSession> studentBookings(TenantId tenantId, StudentId studentId, @Nullable Instant now,
                                               boolean upcoming, int offset, int limit) {
        return delegate().studentBookings(tenantId, studentId, now, upcoming, offset, limit);
    }

    @Override
    public List<Slot> timetable(TenantId tenantId, ResourceRef resource, TimeRange range, int offset, int limit) {
        return delegate().timetable(tenantId, resource, range, offset, limit);
    }

    @Override
    public Optional<Availability> availability(TenantId tenantId, SlotId slotId, @Nullable Instant now) {
        return delegate().availability(tenantId, slotId, now);
    }

    @Override
    public Optional<LiveSlot> liveSlot(TenantId tenantId, SlotId slotId, @Nullable Instant now) {
        return delegate().liveSlot(tenantId, slotId, now);
    }

    @Override
    public Optional<Booking> findBooking(TenantId tenantId, BookingId bookingId) {
        return delegate().findBooking(tenantId, bookingId);
    }

    @Override
    public Optional<Booking> findByRequest(TenantId tenantId, RequestId requestId) {
        return delegate().findByRequest(tenantId, requestId);
    }

    @Override
    public List<Slot> slots(TenantId tenantId, @Nullable SlotId after, int limit) {
        return delegate().slots(tenantId, after, limit);
    }

    @Override
    public LessonPackage grantPackage(TenantId tenantId, PackageGrant grant, @Nullable Instant now) {
        return delegate().grantPackage(tenantId, grant, now);
    }

    @Override
    public List<LessonPackage> packages(TenantId tenantId, StudentId studentId, int offset, int limit) {
        return delegate().packages(tenantId, studentId, offset, limit);
    }

    @Override
    public List<CreditEntry> creditJournal(TenantId tenantId, PackageId packageId, int offset, int limit) {
        return delegate().creditJournal(tenantId, packageId, offset, limit);
    }

    @Override
    public StoreOutcome<CheckInResult> checkIn(TenantId tenantId, BookingId bookingId, @Nullable StudentId studentId,
                                               @Nullable Instant now, Terms terms) {
        return delegate().checkIn(tenantId, bookingId, studentId, now, terms);
    }

    @Override
    public SeriesResult scheduleSeries(TenantId tenantId, SeriesId seriesId, SeriesMode mode, List<Slot> occurrences,
                                       Duration longestSession, ZoneId weekZone) {
        return delegate().scheduleSeries(tenantId, seriesId, mode, occurrences, longestSession, weekZone);
    }

    @Override
    public StoreOutcome<SeriesCancelled> cancelSeries(TenantId tenantId, SeriesId seriesId, Instant from,
                                                      @Nullable Instant now) {
        return delegate().cancelSeries(tenantId, seriesId, from, now);
    }

    @Override
    public List<Slot> seriesSlots(TenantId tenantId, SeriesId seriesId, @Nullable Instant after, int limit) {
        return delegate().seriesSlots(tenantId, seriesId, after, limit);
    }

    @Override
    public StoreOutcome<List<HoldResult>> holdAll(TenantId tenantId, List<HoldCommand> commands, SeriesMode mode) {
        return delegate().holdAll(tenantId, commands, mode);
    }

    @Override
    public List<TenantId> tenants(@Nullable TenantId after, int limit) {
        return delegate().tenants(after, limit);
    }

    @Override
    public @Nullable OutboxStore outbox() {
        return delegate().outbox();
    }
}
