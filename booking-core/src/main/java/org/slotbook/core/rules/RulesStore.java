package org.slotbook.core.rules;

import java.time.Clock;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;
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
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.LeaveResult;
import org.slotbook.core.LessonPackage;
import org.slotbook.core.PackageGrant;
import org.slotbook.core.PackageId;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceKind;
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
import org.slotbook.core.internal.Checks;
import org.slotbook.core.internal.rules.Rules;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.LiveSlot;
import org.slotbook.core.spi.OutboxStore;
import org.slotbook.core.spi.StoreOutcome;
import org.slotbook.core.spi.Terms;

/**
 * A {@link BookingStore} that decides every booking rule over a {@link RuleStorage}: capacity,
 * overlaps and buffers, windows and cutoffs, limits, waitlists, credits, attendance and series. Each
 * decision (and each read) is one {@link RuleStorage#inTransaction transaction} of its tenant; the
 * arguments are checked before it begins, and a {@code now} of null is this store's clock.
 *
 * <pre>{@code
 * BookingStore store = RulesStore.over(new MyStorage());
 * BookingEngine engine = BookingEngine.builder().store(store).build();
 * }</pre>
 */
public final class RulesStore implements BookingStore {
    private final RuleStorage storage;
    private final Clock clock;

    private RulesStore(RuleStorage storage, Clock clock) {
        this.storage = storage;
        this.clock = clock;
    }

    /**
     * {@return a store deciding over {@code storage}, on the system UTC clock}
     *
     * @param storage where the tenants' data is kept
     */
    public static RulesStore over(RuleStorage storage) {
        return over(storage, Clock.systemUTC());
    }

    /**
     * {@return a store deciding over {@code storage}, whose own clock (a {@code now} of null) is {@code clock}}
     *
     * @param storage where the tenants' data is kept
     * @param clock   the clock that decides every deadline
     */
    public static RulesStore over(RuleStorage storage, Clock clock) {
        return new RulesStore(Checks.notNull("storage", storage), Checks.notNull("clock", clock));
    }

    /** {@return the storage this store decides over} */
    public RuleStorage storage() {
        return storage;
    }

    @Override
    public String toString() {
        return "RulesStore[" + storage + "]";
    }

    private <T> T in(TenantId tenantId, Function<RuleTx, T> work) {
        Checks.notNull("tenantId", tenantId);
        return storage.inTransaction(tenantId, work);
    }

    /** Runs {@code work} in a transaction of the tenant at {@code now} (checked first; null: the clock's). */
    private <T> T in(TenantId tenantId, @Nullable Instant now, BiFunction<RuleTx, Instant, T> work) {
        Instant at = at(now);
        return in(tenantId, tx -> work.apply(tx, at));
    }

    private Instant at(@Nullable Instant now) {
        return now != null ? Checks.micros("now", now) : Checks.micros("clock.instant()", clock.instant());
    }

    /** {@return the slot and the week it falls in, in {@code weekZone}} */
    private static StoredSlot week(Slot slot, ZoneId weekZone) {
        LocalDate monday = slot.time().start().atZone(weekZone).toLocalDate()
                .with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
        return new StoredSlot(slot, monday.atStartOfDay(weekZone).toInstant(),
                monday.plusWeeks(1).atStartOfDay(weekZone).toInstant());
    }

    private static void page(int offset, int limit) {
        Checks.between("offset", offset, 0, Integer.MAX_VALUE);
        Checks.positive("limit", limit);
    }

    // ---- decisions

    @Override
    public ScheduleResult schedule(TenantId tenantId, Slot slot, Duration longestSession, ZoneId weekZone) {
        Checks.notNull("slot", slot);
        Checks.notNull("weekZone", weekZone);
        StoredSlot stored = week(slot, weekZone);
        return in(tenantId, tx -> Rules.schedule(tx, stored));
    }

    @Override
    public SeriesResult scheduleSeries(TenantId tenantId, SeriesId seriesId, SeriesMode mode, List<Slot> occurrences,
                                       Duration longestSession, ZoneId weekZone) {
        Checks.notNull("seriesId", seriesId);
        Checks.notNull("mode", mode);
        Checks.notNull("occurrences", occurrences);
        Checks.notNull("weekZone", weekZone);
        List<StoredSlot> stored = new ArrayList<>(occurrences.size());
        for (int i = 0; i < occurrences.size(); i++) {
            Slot slot = Checks.notNull("occurrences[" + i + "]", occurrences.get(i));
            if (!seriesId.equals(slot.seriesId())) {
                throw new InvalidInputException("occurrences[" + i + "] (slot '" + slot.slotId()
                        + "') must be of series '" + seriesId + "', got " + (slot.seriesId() == null ? "none"
                        : "'" + slot.seriesId() + "'"));
            }
            stored.add(week(slot, weekZone));
        }
        return in(tenantId, tx -> Rules.scheduleSeries(tx, seriesId, mode, stored));
    }

    @Override
    public StoreOutcome<HoldResult> hold(TenantId tenantId, HoldCommand command) {
        Checks.notNull("command", command);
        return in(tenantId, command.now(), (tx, now) -> Rules.hold(tx, command, now));
    }

    @Override
    public StoreOutcome<List<HoldResult>> holdAll(TenantId tenantId, List<HoldCommand> commands, SeriesMode mode) {
        Checks.notNull("commands", commands);
        Checks.notNull("mode", mode);
        for (int i = 0; i < commands.size(); i++) {
            HoldCommand cmd = Checks.notNull("commands[" + i + "]", commands.get(i));
            StudentId first = commands.get(0).request().studentId();
            if (!cmd.request().studentId().equals(first)) {
                throw new InvalidInputException("commands must all be of one student: commands[" + i
                        + "] is of '" + cmd.request().studentId() + "', commands[0] of '" + first + "'");
            }
        }
        return in(tenantId, null, (tx, now) -> Rules.holdAll(tx, commands, mode, now));
    }

    @Override
    public StoreOutcome<ConfirmResult> confirm(TenantId tenantId, BookingId bookingId, StudentId studentId,
                                               @Nullable Instant now, Terms terms) {
        Checks.notNull("bookingId", bookingId);
        Checks.notNull("studentId", studentId);
        Checks.notNull("terms", terms);
        return in(tenantId, now, (tx, at) -> Rules.confirm(tx, bookingId, studentId, at, terms));
    }

    @Override
    public StoreOutcome<CancelResult> cancel(TenantId tenantId, BookingId bookingId, @Nullable StudentId studentId,
                                             @Nullable Instant now, Terms terms) {
        Checks.notNull("bookingId", bookingId);
        Checks.notNull("terms", terms);
        return in(tenantId, now, (tx, at) -> Rules.cancel(tx, bookingId, studentId, at, terms));
    }

    @Override
    public StoreOutcome<CancelSlotResult> cancelSlot(TenantId tenantId, SlotId slotId, @Nullable Instant now) {
        Checks.notNull("slotId", slotId);
        return in(tenantId, now, (tx, at) -> Rules.cancelSlot(tx, slotId, at));
    }

    @Override
    public StoreOutcome<SeriesCancelled> cancelSeries(TenantId tenantId, SeriesId seriesId, Instant from,
                                                      @Nullable Instant now) {
        Checks.notNull("seriesId", seriesId);
        Checks.notNull("from", from);
        return in(tenantId, now, (tx, at) -> Rules.cancelSeries(tx, seriesId, from, at));
    }

    @Override
    public StoreOutcome<Integer> expireDue(TenantId tenantId, @Nullable Instant now, int limit, Terms terms) {
        Checks.positive("limit", limit);
        Checks.notNull("terms", terms);
        return in(tenantId, now, (tx, at) -> Rules.expireDue(tx, at, limit, terms));
    }

    @Override
    public StoreOutcome<CheckInResult> checkIn(TenantId tenantId, BookingId bookingId, @Nullable StudentId studentId,
                                               @Nullable Instant now, Terms terms) {
        Checks.notNull("bookingId", bookingId);
        Checks.notNull("terms", terms);
        return in(tenantId, now, (tx, at) -> Rules.checkIn(tx, bookingId, studentId, at, terms));
    }

    @Override
    public StoreOutcome<LeaveResult> leaveWaitlist(TenantId tenantId, RequestId requestId, StudentId studentId,
                                                   @Nullable Instant now) {
        Checks.notNull("requestId", requestId);
        Checks.notNull("studentId", studentId);
        Instant at = now != null ? now : clock.instant();
        return in(tenantId, tx -> Rules.leaveWaitlist(tx, requestId, studentId, at));
    }

    @Override
    public LessonPackage grantPackage(TenantId tenantId, PackageGrant grant, @Nullable Instant now) {
        Checks.notNull("grant", grant);
        return in(tenantId, now, (tx, at) -> Rules.grantPackage(tx, grant, at));
    }

    // ---- reads

    @Override
    public List<LessonPackage> packages(TenantId tenantId, StudentId studentId, int offset, int limit) {
        Checks.notNull("studentId", studentId);
        page(offset, limit);
        return in(tenantId, tx -> Rules.packages(tx, studentId, offset, limit));
    }

    @Override
    public List<CreditEntry> creditJournal(TenantId tenantId, PackageId packageId, int offset, int limit) {
        Checks.notNull("packageId", packageId);
        page(offset, limit);
        return in(tenantId, tx -> tx.journal(packageId, offset, limit));
    }

    @Override
    public Optional<WaitlistEntry> findWaiter(TenantId tenantId, RequestId requestId) {
        Checks.notNull("requestId", requestId);
        return in(tenantId, tx -> Rules.findWaiter(tx, requestId));
    }

    @Override
    public List<WaitlistEntry> waitlist(TenantId tenantId, SlotId slotId, int offset, int limit) {
        Checks.notNull("slotId", slotId);
        return in(tenantId, tx -> Rules.waitlist(tx, slotId, offset, limit));
    }

    @Override
    public List<Booking> roster(TenantId tenantId, SlotId slotId, @Nullable Instant now, int offset, int limit) {
        Checks.notNull("slotId", slotId);
        return in(tenantId, now, (tx, at) -> Rules.roster(tx, slotId, at, offset, limit));
    }

    @Override
    public List<BookedSession> studentBookings(TenantId tenantId, StudentId studentId, @Nullable Instant now,
                                               boolean upcoming, int offset, int limit) {
        Checks.notNull("studentId", studentId);
        return in(tenantId, now, (tx, at) -> Rules.studentBookings(tx, studentId, at, upcoming, offset, limit));
    }

    @Override
    public List<Slot> timetable(TenantId tenantId, ResourceRef resource, TimeRange range, int offset, int limit) {
        Checks.notNull("resource", resource);
        Checks.notNull("range", range);
        if (resource.kind() == ResourceKind.STUDENT) {
            throw new InvalidInputException("resource must be a COACH or a ROOM, got " + resource.kind());
        }
        return in(tenantId, tx -> Rules.timetable(tx, resource, range, offset, limit));
    }

    @Override
    public Optional<Availability> availability(TenantId tenantId, SlotId slotId, @Nullable Instant now) {
        Checks.notNull("slotId", slotId);
        return in(tenantId, now, (tx, at) -> Rules.availability(tx, slotId, at));
    }

    @Override
    public Optional<LiveSlot> liveSlot(TenantId tenantId, SlotId slotId, @Nullable Instant now) {
        Checks.notNull("slotId", slotId);
        return in(tenantId, now, (tx, at) -> Rules.liveSlot(tx, slotId, at));
    }

    @Override
    public Optional<Booking> findBooking(TenantId tenantId, BookingId bookingId) {
        Checks.notNull("bookingId", bookingId);
        return in(tenantId, tx -> tx.booking(bookingId, false));
    }

    @Override
    public Optional<Booking> findByRequest(TenantId tenantId, RequestId requestId) {
        Checks.notNull("requestId", requestId);
        return in(tenantId, tx -> tx.bookingOfRequest(requestId));
    }

    @Override
    public List<Slot> slots(TenantId tenantId, @Nullable SlotId after, int limit) {
        Checks.positive("limit", limit);
        return in(tenantId, tx -> tx.slots(after, limit));
    }

    @Override
    public List<TenantId> tenants(@Nullable TenantId after, int limit) {
        Checks.positive("limit", limit);
        return storage.tenants(after, limit);
    }

    @Override
    public List<Slot> seriesSlots(TenantId tenantId, SeriesId seriesId, @Nullable Instant after, int limit) {
        Checks.notNull("seriesId", seriesId);
        Checks.positive("limit", limit);
        return in(tenantId, after, (tx, from) -> Rules.seriesSlots(tx, seriesId, from, limit));
    }

    @Override
    public @Nullable OutboxStore outbox() {
        return storage.outbox();
    }
}
