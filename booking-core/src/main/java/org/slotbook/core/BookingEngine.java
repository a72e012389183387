package org.slotbook.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.internal.Checks;
import org.slotbook.core.internal.engine.EngineClock;
import org.slotbook.core.internal.engine.Events;
import org.slotbook.core.internal.engine.GateGuard;
import org.slotbook.core.internal.engine.HoldFlow;
import org.slotbook.core.internal.engine.Observed;
import org.slotbook.core.internal.engine.Reconciler;
import org.slotbook.core.internal.engine.Relay;
import org.slotbook.core.internal.engine.Settlement;
import org.slotbook.core.internal.engine.SlotFlow;
import org.slotbook.core.outbox.EventSource;
import org.slotbook.core.outbox.Outbox;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.Terms;

/**
 * Schedules sessions and sells their seats without overselling, without double-booking a coach,
 * room or student, and with idempotent cancels. Thread-safe; build one per application and share it.
 *
 * <pre>{@code
 * BookingEngine engine = BookingEngine.builder()
 *     .store(store)                    // required: the source of truth (JdbcStore, InMemoryStore)
 *     .reservation(gate)               // optional fast gate (Redis)
 *     .build();
 * }</pre>
 *
 * <h2>The hold path</h2>
 * The optional gate takes a seat in one round trip and answers a full slot without the database; one
 * store call then decides under the student's lock (replay, existing booking, rules, overlap, seat
 * claim, writes), and a gate seat the store did not grant is given back. The gate never decides alone
 * that a seat is sold: the store is the judge.
 * <h2>Time</h2>
 * Deadlines are judged by the store's own clock (the database's) in the call that acts on them.
 * An explicit {@link Builder#clock(Clock)} replaces it everywhere (tests, simulations).
 */
public final class BookingEngine implements EventSource {
    private final BookingStore store;
    private final GateGuard guard;
    private final HoldPolicy policy;
    private final EngineClock clock;
    private final Duration maxSessionDuration;
    private final Reconciler reconciler;
    private final HoldFlow holds;
    private final SlotFlow slots;
    private final Settlement settlement;
    private final Function<TenantId, BookingRules> rules;
    private final Observed observed;
    private final Relay relay;

    private BookingEngine(Builder b) {
        this.rules = b.rules;
        this.store = b.store;
        this.observed = new Observed(b.observer);
        this.guard = new GateGuard(b.reservation, observed);
        this.policy = b.holdPolicy;
        this.clock = new EngineClock(b.clock == null ? Clock.systemUTC() : b.clock, b.clock != null);
        this.maxSessionDuration = b.maxSessionDuration;
        this.relay = new Relay(store, b.listener, clock, b.outbox);
        Events events = new Events(b.listener, relay::deliveredInProcess);
        this.reconciler = new Reconciler(store, guard, clock, policy);
        this.holds = new HoldFlow(store, guard, reconciler, clock, policy, maxSessionDuration, events, rules);
        relay.gate(holds::settleEvents);
        this.slots = new SlotFlow(store, guard, reconciler, events);
        this.settlement = new Settlement(store, guard, holds, events);
    }

    /** {@return a builder of an engine; only the store is required} */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Schedules a session: the coach and the room are checked for overlapping sessions and reserved,
     * and {@code capacity} seats are created, in one step. Scheduling the same spec again answers
     * {@link Scheduled} with the stored slot; the same slot id with another spec is refused.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param spec what to schedule
     * @return {@link Scheduled}, or why nothing was scheduled (a conflict of the coach or the room, a slot id
     *         already taken)
     */
    public ScheduleResult schedule(TenantId tenantId, SlotSpec spec) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("spec", spec);
        if (spec.time().duration().compareTo(maxSessionDuration) > 0) {
            throw new InvalidInputException("time: a session of " + spec.time().duration()
                    + " is longer than maxSessionDuration " + maxSessionDuration + " (slotId '" + spec.slotId() + "')");
        }
        return observed.operation("schedule", () -> slots.schedule(tenantId, spec, lookBack(),
                rulesOf(tenantId).zone()));
    }

    /**
     * Holds a seat for the student until the hold policy's TTL runs out; {@link #confirm} makes it
     * final. Idempotent per request id.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param request who wants which slot, under which request id
     * @return {@link Held}, or why the student got no seat (full, waitlisted, not open, a limit reached, ...)
     */
    public HoldResult hold(TenantId tenantId, HoldRequest request) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("request", request);
        return observed.operation("hold", () -> holds.acquire(tenantId, request, BookingStatus.HELD));
    }

    /**
     * Hold and confirm in one step. Idempotent per request id.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param request who wants which slot, under which request id
     * @return as {@link #hold}, the booking CONFIRMED when a seat was had
     */
    public HoldResult book(TenantId tenantId, HoldRequest request) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("request", request);
        return observed.operation("book", () -> holds.acquire(tenantId, request, BookingStatus.CONFIRMED));
    }

    /**
     * Confirms the student's hold. Succeeds iff the store says the hold is live ({@code now <
     * heldUntil}); at or after {@code heldUntil} the hold expires here and its seat goes back. A
     * repeated confirm answers {@link Confirmed} again.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param bookingId the booking, by its id within the tenant
     * @param studentId the student the booking or entry belongs to
     * @return {@link Confirmed}, or why not (expired, not found, not this student's)
     */
    public ConfirmResult confirm(TenantId tenantId, BookingId bookingId, StudentId studentId) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("bookingId", bookingId);
        Checks.notNull("studentId", studentId);
        return observed.operation("confirm", () -> settlement.settle(tenantId,
                store.confirm(tenantId, bookingId, studentId, clock.storeNow(), terms(tenantId))));
    }

    /**
     * Cancels the student's booking and gives its seat back. Idempotent: every repeat (a retried
     * request, a redelivered message, ten concurrent deliveries) answers {@link AlreadyCancelled}
     * and changes nothing. Another student's or tenant's booking answers {@link NotFound}.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param bookingId the booking, by its id within the tenant
     * @param studentId the student the booking or entry belongs to
     * @return {@link Cancelled}, {@link AlreadyCancelled} for a repeat, or why the booking could not be cancelled
     */
    public CancelResult cancel(TenantId tenantId, BookingId bookingId, StudentId studentId) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("bookingId", bookingId);
        Checks.notNull("studentId", studentId);
        return observed.operation("cancel", () -> settlement.settle(tenantId,
                store.cancel(tenantId, bookingId, studentId, clock.storeNow(), terms(tenantId))));
    }

    /**
     * Cancels a booking for the tenant's staff, without the student's id: the same idempotency and
     * give-back as {@link #cancel}, and the same promotion of a waiter. It is never refused as too
     * late, but a cancel after the cutoff is marked {@link Cancelled#late() late} alike.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param bookingId the booking, by its id within the tenant
     * @return as {@link #cancel}
     */
    public CancelResult cancelByStaff(TenantId tenantId, BookingId bookingId) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("bookingId", bookingId);
        return observed.operation("cancelByStaff",
                () -> settlement.settle(tenantId,
                        store.cancel(tenantId, bookingId, null, clock.storeNow(), terms(tenantId))));
    }

    /**
     * Takes the student off the waitlist the request {@code requestId} joined: {@link LeftWaitlist}
     * once, then {@link NotWaiting}; {@link NotFound} when this student has no such entry.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param requestId the client's request id, which makes a repeat answer as the first call
     * @param studentId the student the booking or entry belongs to
     * @return what became of the entry
     */
    public LeaveResult leaveWaitlist(TenantId tenantId, RequestId requestId, StudentId studentId) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("requestId", requestId);
        Checks.notNull("studentId", studentId);
        return observed.operation("leaveWaitlist",
                () -> store.leaveWaitlist(tenantId, requestId, studentId, clock.storeNow()).result());
    }

    /**
     * {@return the waitlist entry of a request, as it is now (its position among those still waiting)}
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param requestId the client's request id, which makes a repeat answer as the first call
     */
    public Optional<WaitlistEntry> waitlistEntry(TenantId tenantId, RequestId requestId) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("requestId", requestId);
        return store.findWaiter(tenantId, requestId);
    }

    /**
     * {@return a booking of the tenant by id}
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param bookingId the booking, by its id within the tenant
     */
    public Optional<Booking> booking(TenantId tenantId, BookingId bookingId) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("bookingId", bookingId);
        return store.findBooking(tenantId, bookingId);
    }

    /**
     * {@return who is in the class: the slot's live bookings (CONFIRMED, and HELD with a live hold) by seat, one
     * page of at most {@code limit} (1..1000) after skipping {@code offset}; empty for an unknown slot}
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param slotId the slot, by its id within the tenant
     * @param offset how many entries to skip before the page starts
     * @param limit the most entries one page returns (1..1000)
     */
    public List<Booking> roster(TenantId tenantId, SlotId slotId, int offset, int limit) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("slotId", slotId);
        page(offset, limit);
        return store.roster(tenantId, slotId, clock.storeNow(), offset, limit);
    }

    /**
     * {@return the slot's waiting list in order (position 1 first), one page; empty for an unknown slot}
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param slotId the slot, by its id within the tenant
     * @param offset how many entries to skip before the page starts
     * @param limit the most entries one page returns (1..1000)
     */
    public List<WaitlistEntry> waitlist(TenantId tenantId, SlotId slotId, int offset, int limit) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("slotId", slotId);
        page(offset, limit);
        return store.waitlist(tenantId, slotId, offset, limit);
    }

    /**
     * {@return what a student has booked: {@code upcoming} live bookings of sessions that have not ended,
     * soonest first; else the confirmed bookings of past sessions, latest first} One page.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param studentId the student the booking or entry belongs to
     * @param upcoming true: live bookings of sessions not yet ended; false: confirmed bookings of past sessions
     * @param offset how many entries to skip before the page starts
     * @param limit the most entries one page returns (1..1000)
     */
    public List<BookedSession> bookingsOf(TenantId tenantId, StudentId studentId, boolean upcoming, int offset,
                                          int limit) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("studentId", studentId);
        page(offset, limit);
        return store.studentBookings(tenantId, studentId, clock.storeNow(), upcoming, offset, limit);
    }

    /**
     * {@return a coach's or room's open sessions overlapping {@code range}, by start, one page}
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param resource the coach or room (kind COACH or ROOM)
     * @param range the time range the sessions must overlap
     * @param offset how many entries to skip before the page starts
     * @param limit the most entries one page returns (1..1000)
     */
    public List<Slot> timetable(TenantId tenantId, ResourceRef resource, TimeRange range, int offset, int limit) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("resource", resource);
        Checks.notNull("range", range);
        if (resource.kind() == ResourceKind.STUDENT) {
            throw new InvalidInputException("resource must be a COACH or a ROOM, got " + resource);
        }
        page(offset, limit);
        return store.timetable(tenantId, resource, range, offset, limit);
    }

    private static void page(int offset, int limit) {
        Checks.between("offset", offset, 0, 1_000_000);
        Checks.between("limit", limit, 1, 1_000);
    }

    BookingRules rulesOf(TenantId tenantId) {
        BookingRules r = rules.apply(tenantId);
        if (r == null) {
            throw new IllegalStateException("the rules function returned null for a tenant");
        }
        return r;
    }

    private Terms terms(TenantId tenantId) {
        return new Terms(rulesOf(tenantId), policy.holdTtl(), lookBack());
    }

    /** How far back a conflict check looks: the longest session plus the longest buffer. */
    private Duration lookBack() {
        return maxSessionDuration.plus(SlotSpec.MAX_BUFFER);
    }

    /**
     * Calls a session off: the slot stops selling, every booking of it is cancelled, every seat and
     * every occupation (coach, room, students) released, and the gate's state for it dropped.
     * Idempotent: a repeat answers {@link AlreadyCancelled}.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param slotId the slot, by its id within the tenant
     * @return what the call did: the slot cancelled now, or already, or not found
     */
    public CancelSlotResult cancelSlot(TenantId tenantId, SlotId slotId) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("slotId", slotId);
        return observed.operation("cancelSlot", () -> slots.cancelSlot(tenantId, slotId, clock.storeNow()));
    }

    /**
     * Seats of the slot as the store sees them now: {@link Availability} with {@code remaining =
     * capacity - live holds - confirmed}, or {@link NotFound} when the slot is not scheduled for
     * this tenant (as {@link #hold} answers for it).
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param slotId the slot, by its id within the tenant
     * @return the slot's seats, or {@link NotFound}
     */
    public AvailabilityResult availability(TenantId tenantId, SlotId slotId) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("slotId", slotId);
        return observed.operation("availability", () -> store.availability(tenantId, slotId, clock.storeNow())
                .<AvailabilityResult>map(a -> a).orElseGet(NotFound::new));
    }

    /**
     * Expires, in batches of {@code batchSize}, every HELD booking of the tenant whose hold ran out,
     * frees its seat and occupation, and tells the gate and the listener. Safe to run on several
     * nodes at once. Returns how many bookings this call expired.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param batchSize the most holds one batch expires (1..10000)
     * @return how many holds expired
     */
    public int sweepExpired(TenantId tenantId, int batchSize) {
        Checks.notNull("tenantId", tenantId);
        Checks.between("batchSize", batchSize, 1, 10_000);
        int expired = observed.operation("sweepExpired",
                () -> settlement.sweep(tenantId, clock.storeNow(), batchSize, terms(tenantId)));
        observed.swept(tenantId, expired);
        return expired;
    }

    /**
     * Converges the gate's state of one slot to the store's truth: holders the store does not know
     * are removed (only when older than the policy's in-flight grace, so a hold whose transaction is
     * still running is never dropped), holders it has are added, the capacity corrected. A cancelled
     * slot's gate state is dropped. Without a gate this does nothing.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param slotId the slot, by its id within the tenant
     * @return what was repaired
     */
    public ReconcileReport reconcile(TenantId tenantId, SlotId slotId) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("slotId", slotId);
        ReconcileReport report = observed.operation("reconcile", () -> reconciler.reconcile(tenantId, slotId));
        observed.reconciled(tenantId, report);
        return report;
    }

    /**
     * {@link #reconcile(TenantId, SlotId)} for every slot of the tenant that has not ended, page by
     * page (bounded memory).
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @return what was repaired, over all slots of the tenant
     */
    public ReconcileReport reconcileAll(TenantId tenantId) {
        Checks.notNull("tenantId", tenantId);
        ReconcileReport report = observed.operation("reconcileAll", () -> reconciler.reconcileAll(tenantId));
        observed.reconciled(tenantId, report);
        return report;
    }

    /**
     * {@return up to {@code limit} tenants of the store (those with at least one slot) in tenant id order,
     * after {@code after} (null: from the first): one page of the tenants upkeep runs over when the
     * host does not name them}
     *
     * @param after the last entry of the page before (null: from the first)
     * @param limit the most entries one page returns (1..1000)
     */
    public List<TenantId> tenants(@Nullable TenantId after, int limit) {
        Checks.between("limit", limit, 1, 10_000);
        return store.tenants(after, limit);
    }

    /**
     * Grants the student a package of lessons: its credits pay for slots with a {@link Slot#cost()}, drawn in the
     * same step that gives a booking its seat (or at check-in, per {@link BookingRules#credits()}). Idempotent per
     * package id: the same grant again answers the stored package; the same id with other terms is refused.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param grant the package to grant: its student, credits and validity
     * @return the package as stored, with its remaining credits (a repeat answers the stored package)
     */
    public LessonPackage grantPackage(TenantId tenantId, PackageGrant grant) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("grant", grant);
        return observed.operation("grantPackage", () -> {
            LessonPackage stored = store.grantPackage(tenantId, grant, clock.storeNow());
            if (!stored.matches(grant)) {
                // name only what the caller sent: the stored package stays private
                throw new InvalidInputException("packageId '" + grant.packageId() + "' is already taken by a"
                        + " package with other terms; refusing student '" + grant.studentId() + "', "
                        + grant.credits() + " credits, valid " + grant.validFrom() + " to " + grant.validUntil());
            }
            return stored;
        });
    }

    /**
     * {@return the student's packages with their remaining credits, the one that expires first first; one page}
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param studentId the student the booking or entry belongs to
     * @param offset how many entries to skip before the page starts
     * @param limit the most entries one page returns (1..1000)
     */
    public List<LessonPackage> packages(TenantId tenantId, StudentId studentId, int offset, int limit) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("studentId", studentId);
        page(offset, limit);
        return store.packages(tenantId, studentId, offset, limit);
    }

    /**
     * {@return every credit movement of a package (grant, draws, refunds, forfeits) in order; one page}
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param packageId the lesson package
     * @param offset how many entries to skip before the page starts
     * @param limit the most entries one page returns (1..1000)
     */
    public List<CreditEntry> creditJournal(TenantId tenantId, PackageId packageId, int offset, int limit) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("packageId", packageId);
        page(offset, limit);
        return store.creditJournal(tenantId, packageId, offset, limit);
    }

    /**
     * Checks the student in to a CONFIRMED booking, within the check-in window ({@link
     * BookingRules#checkInOpensBefore()} before the start until {@link BookingRules#checkInClosesAfterEnd()} after
     * the end). Idempotent: a repeat answers {@link CheckedIn} with {@code replayed}. Under {@link
     * CreditPolicy#AT_CHECK_IN} this is when the credits are drawn.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param bookingId the booking, by its id within the tenant
     * @param studentId the student the booking or entry belongs to
     * @return {@link CheckedIn}, or why not (outside the window, not confirmed, not found)
     */
    public CheckInResult checkIn(TenantId tenantId, BookingId bookingId, StudentId studentId) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("bookingId", bookingId);
        Checks.notNull("studentId", studentId);
        return observed.operation("checkIn", () -> settlement.settle(tenantId,
                store.checkIn(tenantId, bookingId, studentId, clock.storeNow(), terms(tenantId))));
    }

    /**
     * {@link #checkIn} by the tenant's staff (at the desk), for any booking of the tenant.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param bookingId the booking, by its id within the tenant
     * @return as {@link #checkIn}
     */
    public CheckInResult checkInByStaff(TenantId tenantId, BookingId bookingId) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("bookingId", bookingId);
        return observed.operation("checkInByStaff", () -> settlement.settle(tenantId,
                store.checkIn(tenantId, bookingId, null, clock.storeNow(), terms(tenantId))));
    }

    /**
     * Schedules every occurrence of a weekly series in one step, each conflict-checked as
     * {@link #schedule} does. {@link SeriesMode#ALL_OR_NOTHING} writes nothing when one occurrence
     * conflicts; {@link SeriesMode#BEST_EFFORT} schedules the others. The answer lists every occurrence.
     * Idempotent: the same series again answers its occurrences SCHEDULED.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param spec what to schedule
     * @param mode whether every part must succeed, or each that can
     * @return the scheduled occurrences and each conflict
     */
    public SeriesResult scheduleSeries(TenantId tenantId, SeriesSpec spec, SeriesMode mode) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("spec", spec);
        Checks.notNull("mode", mode);
        if (spec.length().compareTo(maxSessionDuration) > 0) {
            throw new InvalidInputException("length: a session of " + spec.length()
                    + " is longer than maxSessionDuration " + maxSessionDuration + " (seriesId '" + spec.seriesId() + "')");
        }
        List<SlotSpec> specs = spec.occurrences();
        if (specs.isEmpty()) {
            throw new InvalidInputException("series '" + spec.seriesId() + "' has no occurrence between "
                    + spec.firstDay() + " and " + spec.lastDay() + " on " + spec.days());
        }
        return observed.operation("scheduleSeries", () -> slots.scheduleSeries(tenantId, spec, mode, specs,
                lookBack(), rulesOf(tenantId).zone()));
    }

    /**
     * Cancels the series from {@code from} on: every open occurrence starting at or after it is called
     * off as {@link #cancelSlot} does (bookings released, credits refunded). Idempotent.
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param seriesId the weekly series
     * @param from from this instant on
     * @return which occurrences were called off
     */
    public SeriesCancelled cancelSeries(TenantId tenantId, SeriesId seriesId, Instant from) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("seriesId", seriesId);
        Instant since = Checks.micros("from", from);
        return observed.operation("cancelSeries",
                () -> slots.cancelSeries(tenantId, seriesId, since, clock.storeNow()));
    }

    /**
     * Books (CONFIRMED) the student into every open occurrence of the series that has not started, in
     * one step, with credits drawn per occurrence. {@link SeriesMode#ALL_OR_NOTHING} books all or none.
     * Idempotent per {@code requestId}: each occurrence is booked under {@code <requestId>/<yyyy-MM-dd>},
     * so a retry answers the same bookings (the request id is at most 53 characters).
     *
     * @param tenantId the tenant whose data the call reads or changes
     * @param requestId the client's request id, which makes a repeat answer as the first call
     * @param seriesId the weekly series
     * @param studentId the student the booking or entry belongs to
     * @param mode whether every part must succeed, or each that can
     * @return each occurrence booked or refused, and why
     */
    public SeriesBooking bookSeries(TenantId tenantId, RequestId requestId, SeriesId seriesId, StudentId studentId,
                                    SeriesMode mode) {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("requestId", requestId);
        Checks.notNull("seriesId", seriesId);
        Checks.notNull("studentId", studentId);
        Checks.notNull("mode", mode);
        if (requestId.value().length() > SeriesId.MAX_LENGTH) {
            throw new InvalidInputException("requestId of a series booking must be at most " + SeriesId.MAX_LENGTH
                    + " characters, got " + requestId.value().length() + " characters");
        }
        return observed.operation("bookSeries", () -> holds.bookSeries(tenantId, requestId, seriesId, studentId, mode));
    }

    @Override
    public Outbox outbox() {
        return relay;
    }

    /** {@return counters since this engine was built} */
    public EngineMetrics metrics() {
        return guard.metrics();
    }

    /** {@return the hold policy the engine was built with} */
    public HoldPolicy holdPolicy() {
        return policy;
    }

    /** {@return the clock the engine was built with, or the system UTC clock} */
    public Clock clock() {
        return clock.clock();
    }

    /** Builds a {@link BookingEngine}; only {@code store} is required. */
    public static final class Builder extends EngineSettings {
        private Builder() {
        }

        /** {@return the engine, with the defaults for whatever was not set} */
        public BookingEngine build() {
            if (store == null) {
                throw new InvalidInputException("store must be set: the engine needs a BookingStore");
            }
            return new BookingEngine(this);
        }
    }
}
