package org.slotbook.core.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.slotbook.core.AlreadyBooked;
import org.slotbook.core.AlreadyCancelled;
import org.slotbook.core.Availability;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CancelResult;
import org.slotbook.core.CancelSlotResult;
import org.slotbook.core.Cancelled;
import org.slotbook.core.CoachId;
import org.slotbook.core.ConfirmResult;
import org.slotbook.core.Confirmed;
import org.slotbook.core.Conflict;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldExpired;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.HoldResult;
import org.slotbook.core.NotFound;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceConflict;
import org.slotbook.core.ResourceKind;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.RoomId;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.Scheduled;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotCancelled;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotNotOpen;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.spi.BookingEvent;
import org.slotbook.core.spi.BookingEvent.Kind;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.DuplicateBookingException;
import org.slotbook.core.spi.HoldCommand;
import org.slotbook.core.spi.LiveSlot;
import org.slotbook.core.spi.StoreOutcome;

/**
 * What every {@link BookingStore} must do, seen only through its own methods. A backend subclasses
 * it once and returns its store; each test uses a fresh tenant, so the backend may be shared by all
 * tests of the class and reused across runs on the same server.
 *
 * <p>Every call passes an explicit {@code now} (the real time when the test started, moved by hand),
 * except {@link #aNullNowIsTheStoresOwnClock()}. Concurrent tests read their invariants back from the
 * store ({@code liveSlot}, {@code availability}, {@code slots}), not only from the answers.
 */
public abstract class BookingStoreContract {
    /** The confirm window of the holds these tests take. */
    protected static final Duration TTL = Duration.ofMinutes(10);
    /** The longest session these tests schedule; every call passes it. */
    protected static final Duration LONGEST = Duration.ofHours(4);
    protected static final java.time.ZoneId UTC = java.time.ZoneOffset.UTC;
    protected static final org.slotbook.core.spi.Terms TERMS = new org.slotbook.core.spi.Terms(
            org.slotbook.core.BookingRules.defaults(), Duration.ofMinutes(10), LONGEST);

    /** The bookings one sweep expired, as the EXPIRED events of its outcome. */
    protected List<Booking> expired(TenantId tenantId, Instant now, int limit) {
        return store().expireDue(tenantId, now, limit, TERMS).events().stream()
                .filter(e -> e.kind() == org.slotbook.core.spi.BookingEvent.Kind.EXPIRED)
                .map(org.slotbook.core.spi.BookingEvent::booking).toList();
    }

    // Fresh for every test, also when a subclass shares one instance across tests (PER_CLASS).
    protected TenantId tenant;
    protected MutableClock clock;
    /** The tests' "now": the real current time when the test started, at millisecond precision. */
    protected Instant now;
    /** Minute 0 of the tests' timeline: a whole hour a day from now. */
    protected Instant base;
    private int slotsMade;

    @BeforeEach
    void freshTenant() {
        tenant = Fixtures.tenant();
        clock = new MutableClock();
        now = clock.instant();
        base = Fixtures.nextHour(now).plus(Duration.ofDays(1));
        slotsMade = 0;
    }

    /** The store under test (may be the same instance on every call). */
    protected abstract BookingStore store();

    // ================================================================ input

    @Test
    void aNowOutsideTheRangeEveryDatabaseStoresIsRefusedByNameAndChangesNothing() {
        Slot slot = slot(2);
        Booking b = held(slot, Fixtures.student());
        for (Instant bad : List.of(Instant.parse("9999-06-01T10:00:00Z"), Instant.parse("1899-12-31T00:00:00Z"))) {
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> store().cancel(tenant, b.bookingId(), b.studentId(), bad, TERMS))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("now")
                    .hasMessageContaining(bad.toString());
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> store().confirm(tenant, b.bookingId(), b.studentId(), bad, TERMS))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(bad.toString());
        }
        assertThat(store().findBooking(tenant, b.bookingId())).contains(b);
        assertThat(availability(slot, now).remaining()).isEqualTo(1);
    }

    // ================================================================ schedule

    @Test
    void scheduleStoresAnOpenSlotWithCapacityFreeSeats() {
        Slot slot = slot(3);

        assertThat(store().slots(tenant, null, 10)).containsExactly(slot);
        assertThat(availability(slot, now)).isEqualTo(new Availability(slot.slotId(), SlotStatus.OPEN, 3, 0, 0, 3));
        assertThat(store().liveSlot(tenant, slot.slotId(), now)).contains(new LiveSlot(slot, List.of()));
        List<Integer> seats = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            seats.add(held(slot, Fixtures.student()).seat());
        }
        assertThat(seats).containsExactlyInAnyOrder(1, 2, 3);

        HoldCommand fourth = command(slot, Fixtures.student());
        StoreOutcome<HoldResult> full = store().hold(tenant, fourth);
        assertThat(full.result()).isEqualTo(new Full(slot.slotId()));
        assertThat(full.events()).isEmpty();
        assertNothingWrittenFor(fourth);
        assertThat(availability(slot, now)).isEqualTo(new Availability(slot.slotId(), SlotStatus.OPEN, 3, 3, 0, 0));
        assertThat(live(slot, now)).hasSize(3);
    }

    @Test
    void schedulingAnExistingSlotIdAnswersTheStoredSlotAndWritesNothing() {
        Slot slot = slot(2);
        Slot other = new Slot(tenant, slot.slotId(), Fixtures.coach(), Fixtures.room(),
                TimeRange.of(slot.time().start().plus(Duration.ofDays(1)), Duration.ofHours(2)), 5, SlotStatus.OPEN);

        assertThat(store().schedule(tenant, other, LONGEST, UTC)).isEqualTo(new Scheduled(slot));
        assertThat(store().schedule(tenant, slot, LONGEST, UTC)).as("the same slot again").isEqualTo(new Scheduled(slot));

        assertThat(store().slots(tenant, null, 10)).containsExactly(slot);
        assertThat(availability(slot, now).capacity()).isEqualTo(2);
        held(slot, Fixtures.student());
        held(slot, Fixtures.student());
        assertThat(hold(slot, Fixtures.student(), now).result()).as("still 2 seats").isEqualTo(new Full(slot.slotId()));
        // neither the other coach nor the other room was occupied
        schedule(newSlot(other.time(), other.coachId(), other.roomId(), 1));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = ResourceKind.class, names = {"COACH", "ROOM"})
    void aBusyCoachOrRoomIsAConflictThatNamesTheClashingSlotAndWritesNothing(ResourceKind kind) {
        Slot existing = schedule(newSlot(range(60, 120), Fixtures.coach(), Fixtures.room(), 5));
        ResourceRef busy = kind == ResourceKind.COACH ? ResourceRef.of(existing.coachId())
                : ResourceRef.of(existing.roomId());

        int[][] shapes = {{60, 120}, {30, 90}, {90, 150}, {70, 80}, {0, 180}, {119, 121}, {59, 61}};
        for (int[] shape : shapes) {
            CoachId coach = kind == ResourceKind.COACH ? existing.coachId() : Fixtures.coach();
            RoomId room = kind == ResourceKind.ROOM ? existing.roomId() : Fixtures.room();
            Slot newcomer = newSlot(range(shape[0], shape[1]), coach, room, 5);

            ScheduleResult result = store().schedule(tenant, newcomer, LONGEST, UTC);

            assertThat(clashes(result)).as("shape %s", newcomer.time()).containsExactly(
                    new ResourceConflict(busy, existing.slotId(), Optional.empty(), existing.time()));
            assertThat(store().availability(tenant, newcomer.slotId(), now)).as("not stored").isEmpty();
            // the free resource of the refused slot was not occupied either
            schedule(kind == ResourceKind.COACH
                    ? newSlot(newcomer.time(), Fixtures.coach(), room, 1)
                    : newSlot(newcomer.time(), coach, Fixtures.room(), 1));
        }
        assertThat(store().slots(tenant, null, 100)).extracting(Slot::slotId).contains(existing.slotId())
                .hasSize(1 + shapes.length);
    }

    @Test
    void aBusyCoachAndRoomAreBothNamed() {
        Slot existing = schedule(newSlot(range(60, 120), Fixtures.coach(), Fixtures.room(), 5));

        ScheduleResult result = store().schedule(tenant,
                newSlot(range(119, 200), existing.coachId(), existing.roomId(), 5), LONGEST, UTC);

        assertThat(clashes(result)).containsExactlyInAnyOrder(
                new ResourceConflict(ResourceRef.of(existing.coachId()), existing.slotId(), Optional.empty(),
                        existing.time()),
                new ResourceConflict(ResourceRef.of(existing.roomId()), existing.slotId(), Optional.empty(),
                        existing.time()));
        assertThat(store().slots(tenant, null, 10)).containsExactly(existing);
    }

    @Test
    void backToBackSessionsDoNotConflictAndACancelledSlotNoLongerCounts() {
        CoachId coach = Fixtures.coach();
        RoomId room = Fixtures.room();
        Slot middle = schedule(newSlot(range(60, 120), coach, room, 2));
        Slot after = schedule(newSlot(range(120, 180), coach, room, 2));
        Slot before = schedule(newSlot(range(0, 60), coach, room, 2));

        Slot across = newSlot(range(119, 121), coach, Fixtures.room(), 2);
        assertThat(clashes(store().schedule(tenant, across, LONGEST, UTC))).extracting(ResourceConflict::slotId)
                .containsExactlyInAnyOrder(middle.slotId(), after.slotId());

        assertThat(store().cancelSlot(tenant, middle.slotId(), now).result()).isInstanceOf(SlotCancelled.class);
        assertThat(clashes(store().schedule(tenant, across, LONGEST, UTC))).extracting(ResourceConflict::slotId)
                .containsExactly(after.slotId());
        schedule(newSlot(range(90, 120), coach, room, 2));
        assertThat(store().slots(tenant, null, 10)).extracting(Slot::slotId).contains(before.slotId());
    }

    @Test
    void aSessionThatStartedUpToTheLongestSessionBeforeStillConflicts() {
        Slot longest = schedule(newSlot(TimeRange.of(base, LONGEST), Fixtures.coach(), Fixtures.room(), 2));
        Instant end = base.plus(LONGEST);

        Slot lastMicro = newSlot(TimeRange.of(end.minusNanos(1_000), Duration.ofHours(1)), longest.coachId(),
                Fixtures.room(), 2);
        assertThat(clashes(store().schedule(tenant, lastMicro, LONGEST, UTC))).extracting(ResourceConflict::slotId)
                .containsExactly(longest.slotId());
        schedule(newSlot(TimeRange.of(end, Duration.ofHours(1)), longest.coachId(), Fixtures.room(), 2));
    }

    @Test
    void differentResourcesWithTheSameIdNeverConflict() {
        String sameId = "x-" + Fixtures.shortRandom();
        Slot byCoach = schedule(newSlot(range(60, 120), CoachId.of(sameId), Fixtures.room(), 2));
        Slot byRoom = schedule(newSlot(range(60, 120), Fixtures.coach(), RoomId.of(sameId), 2));
        schedule(newSlot(range(60, 120), Fixtures.coach(), Fixtures.room(), 2));

        Booking b = held(byCoach, StudentId.of(sameId));
        assertThat(b.studentId().value()).isEqualTo(sameId);
        assertThat(clashes(hold(byRoom, StudentId.of(sameId), now).result())).as("the student, not the room")
                .extracting(ResourceConflict::kind).containsExactly(ResourceKind.STUDENT);
    }

    @Test
    void theSameCoachInTwoTenantsNeverClashes() {
        TenantId other = Fixtures.tenant();
        CoachId coach = CoachId.of("shared-" + Fixtures.shortRandom());
        RoomId room = RoomId.of("shared-" + Fixtures.shortRandom());
        Slot mine = schedule(newSlot(range(0, 60), coach, room, 1));
        Slot theirs = new Slot(other, mine.slotId(), coach, room, mine.time(), 1, SlotStatus.OPEN);

        assertThat(store().schedule(other, theirs, LONGEST, UTC)).isEqualTo(new Scheduled(theirs));
        assertThat(store().cancelSlot(other, theirs.slotId(), now).result()).isInstanceOf(SlotCancelled.class);

        assertThat(clashes(store().schedule(tenant, newSlot(range(30, 90), coach, Fixtures.room(), 1), LONGEST, UTC)))
                .extracting(ResourceConflict::slotId).containsExactly(mine.slotId());
        assertThat(availability(mine, now).status()).isEqualTo(SlotStatus.OPEN);
    }

    @Test
    void concurrentSchedulingGivesACoachOneSession() {
        CoachId coach = Fixtures.coach();
        int threads = 12;

        List<ScheduleResult> results = Concurrent.run(threads, i -> store().schedule(tenant,
                newSlot(TimeRange.of(base.plus(Duration.ofMinutes(i)), Duration.ofHours(1)), coach, Fixtures.room(), 5),
                LONGEST, UTC));

        assertThat(results).filteredOn(r -> r instanceof Scheduled).hasSize(1);
        assertThat(results).filteredOn(r -> r instanceof Conflict).hasSize(threads - 1);
        Slot winner = results.stream().filter(r -> r instanceof Scheduled).map(r -> ((Scheduled) r).slot())
                .findFirst().orElseThrow();
        assertThat(store().slots(tenant, null, 100)).containsExactly(winner);
    }

    @Test
    void randomConcurrentSchedulesNeverOverlap() {
        Random random = Fixtures.random("randomConcurrentSchedulesNeverOverlap");
        List<CoachId> coaches = List.of(Fixtures.coach(), Fixtures.coach(), Fixtures.coach());
        List<RoomId> rooms = List.of(Fixtures.room(), Fixtures.room());
        int threads = 8;
        int attempts = 25;
        long[] seeds = new long[threads];
        for (int i = 0; i < threads; i++) {
            seeds[i] = random.nextLong();
        }
        ConcurrentLinkedQueue<Slot> scheduled = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<ResourceConflict> refusals = new ConcurrentLinkedQueue<>();

        Concurrent.runAll(threads, i -> {
            Random mine = new Random(seeds[i]);
            for (int k = 0; k < attempts; k++) {
                int start = 15 * mine.nextInt(80);
                int length = 15 * (2 + mine.nextInt(15));
                Slot slot = newSlot(range(start, start + length), coaches.get(mine.nextInt(coaches.size())),
                        rooms.get(mine.nextInt(rooms.size())), 3);
                ScheduleResult result = store().schedule(tenant, slot, LONGEST, UTC);
                if (result instanceof Scheduled s) {
                    assertThat(s.slot()).isEqualTo(slot);
                    scheduled.add(slot);
                } else {
                    refusals.addAll(clashes(result));
                }
            }
        });

        List<Slot> stored = allSlots(tenant);
        assertThat(stored).isNotEmpty().containsExactlyInAnyOrderElementsOf(scheduled);
        for (int a = 0; a < stored.size(); a++) {
            for (int b = a + 1; b < stored.size(); b++) {
                Slot x = stored.get(a);
                Slot y = stored.get(b);
                if (x.coachId().equals(y.coachId()) || x.roomId().equals(y.roomId())) {
                    assertThat(x.time().overlaps(y.time())).as("%s overlaps %s", x, y).isFalse();
                }
            }
        }
        for (ResourceConflict c : refusals) {
            Slot named = stored.stream().filter(s -> s.slotId().equals(c.slotId())).findFirst()
                    .orElseThrow(() -> new AssertionError("a refusal names an unstored slot: " + c));
            assertThat(c.time()).isEqualTo(named.time());
            assertThat(List.of(ResourceRef.of(named.coachId()), ResourceRef.of(named.roomId())))
                    .contains(c.resource());
        }
    }

    // ================================================================ hold

    @Test
    void aHoldWritesTheBookingAsAsked() {
        Slot slot = slot(2);
        HoldCommand cmd = command(slot, Fixtures.student());

        StoreOutcome<HoldResult> outcome = store().hold(tenant, cmd);

        Booking b = granted(outcome);
        assertThat(b.tenantId()).isEqualTo(tenant);
        assertThat(b.bookingId()).isEqualTo(cmd.bookingId());
        assertThat(b.requestId()).isEqualTo(cmd.request().requestId());
        assertThat(b.slotId()).isEqualTo(slot.slotId());
        assertThat(b.studentId()).isEqualTo(cmd.request().studentId());
        assertThat(b.status()).isEqualTo(BookingStatus.HELD);
        assertThat(b.heldUntil()).isEqualTo(now.plus(TTL));
        assertThat(b.createdAt()).isEqualTo(now);
        assertThat(b.updatedAt()).isEqualTo(now);
        assertThat(b.seat()).isBetween(1, 2);
        assertThat(outcome.events()).containsExactly(new BookingEvent(Kind.HELD, b));
        assertThat(outcome.subject()).isNull();
        assertThat(store().findBooking(tenant, b.bookingId())).contains(b);
        assertThat(store().findByRequest(tenant, b.requestId())).contains(b);
        assertThat(live(slot, now)).containsExactly(b);

        HoldCommand book = command(slot, Fixtures.student(), RequestId.random(), BookingStatus.CONFIRMED, now, false);
        StoreOutcome<HoldResult> booked = store().hold(tenant, book);
        Booking direct = granted(booked);
        assertThat(direct.status()).isEqualTo(BookingStatus.CONFIRMED);
        assertThat(booked.events()).containsExactly(new BookingEvent(Kind.CONFIRMED, direct));
        assertThat(direct.seat()).isNotEqualTo(b.seat()).isBetween(1, 2);
        assertThat(availability(slot, now)).isEqualTo(new Availability(slot.slotId(), SlotStatus.OPEN, 2, 1, 1, 0));
    }

    @ParameterizedTest(name = "capacity {0}")
    @ValueSource(ints = {1, 10})
    void racingHoldsNeverOversell(int capacity) {
        Slot slot = slot(capacity);
        int threads = 50;

        List<StoreOutcome<HoldResult>> outcomes = Concurrent.run(threads,
                i -> store().hold(tenant, command(slot, StudentId.of("s-" + i + "-" + Fixtures.shortRandom()))));

        List<Booking> won = outcomes.stream().filter(o -> o.result() instanceof Held)
                .map(o -> ((Held) o.result()).booking()).toList();
        assertThat(outcomes).filteredOn(o -> o.result() instanceof Full).hasSize(threads - capacity);
        assertThat(won).hasSize(capacity);
        List<Booking> live = live(slot, now);
        assertThat(live).hasSize(capacity);
        assertThat(live).extracting(Booking::seat).doesNotHaveDuplicates()
                .allSatisfy(seat -> assertThat(seat).isBetween(1, capacity));
        assertThat(live).extracting(Booking::studentId).doesNotHaveDuplicates();
        assertThat(live).containsExactlyInAnyOrderElementsOf(won);
        assertThat(availability(slot, now))
                .isEqualTo(new Availability(slot.slotId(), SlotStatus.OPEN, capacity, capacity, 0, 0));
    }

    @Test
    void aReplayedRequestAnswersTheStoredBookingAndWritesNothing() {
        Slot slot = slot(1);
        HoldCommand first = command(slot, Fixtures.student());
        Booking b = granted(store().hold(tenant, first));

        StoreOutcome<HoldResult> again = store().hold(tenant, first);
        assertThat(again.result()).isEqualTo(new Held(b, true));
        assertThat(again.events()).isEmpty();
        HoldCommand retry = command(slot, first.request().studentId(), first.request().requestId(), BookingStatus.HELD,
                now.plusSeconds(1), false);
        assertThat(store().hold(tenant, retry).result()).as("a retry under a new booking id")
                .isEqualTo(new Held(b, true));
        assertThat(store().findBooking(tenant, retry.bookingId())).isEmpty();
        assertThat(store().hold(tenant, gated(retry)).result()).as("gate held").isEqualTo(new Held(b, true));
        assertThat(live(slot, now)).containsExactly(b);

        Booking confirmed = ((Confirmed) confirm(b, now).result()).booking();
        assertThat(store().hold(tenant, retry).result()).as("the booking as it is now")
                .isEqualTo(new Held(confirmed, true));
        Booking cancelled = ((Cancelled) cancel(b, now).result()).booking();
        assertThat(store().hold(tenant, retry).result()).isEqualTo(new Held(cancelled, true));
        assertThat(store().findBooking(tenant, retry.bookingId())).isEmpty();
        assertThat(availability(slot, now).remaining()).isEqualTo(1);
    }

    @Test
    void concurrentAttemptsOfOneRequestStoreOneBooking() {
        Slot slot = slot(5);
        StudentId student = Fixtures.student();
        RequestId request = RequestId.random();

        List<StoreOutcome<HoldResult>> outcomes = Concurrent.run(10, i -> store().hold(tenant,
                command(slot, student, request, BookingStatus.HELD, now, i % 2 == 0)));

        assertThat(outcomes).allSatisfy(o -> assertThat(o.result()).isInstanceOf(Held.class));
        assertThat(outcomes).filteredOn(o -> !((Held) o.result()).replayed()).hasSize(1);
        Booking stored = store().findByRequest(tenant, request).orElseThrow();
        assertThat(outcomes).extracting(o -> ((Held) o.result()).booking()).containsOnly(stored);
        assertThat(live(slot, now)).containsExactly(stored);
    }

    @Test
    void aRequestIdUsedByAnotherStudentIsRefusedAndWritesNothing() {
        Slot slot = slot(3);
        Slot another = slot(3);
        Booking first = held(slot, Fixtures.student());
        StudentId intruder = Fixtures.student();
        HoldCommand sameRequest = command(another, intruder, first.requestId(), BookingStatus.HELD, now, false);

        for (HoldCommand attempt : List.of(sameRequest, gated(sameRequest))) {
            try {
                StoreOutcome<HoldResult> outcome = store().hold(tenant, attempt);
                assertThat(outcome.result()).as("answered as a replay, which the engine refuses")
                        .isEqualTo(new Held(first, true));
                assertThat(outcome.events()).isEmpty();
            } catch (DuplicateBookingException refused) {
                // refused by a unique key: as good
            }
        }

        assertThat(store().findByRequest(tenant, first.requestId())).contains(first);
        assertThat(store().findBooking(tenant, sameRequest.bookingId())).isEmpty();
        assertThat(availability(another, now).remaining()).isEqualTo(3);
        assertThat(live(slot, now)).containsExactly(first);
        Booking own = held(another, intruder);
        assertThat(own.studentId()).as("the intruder has no seat there yet").isEqualTo(intruder);
    }

    @Test
    void aSecondRequestOfTheSameStudentIsAlreadyBooked() {
        Slot slot = slot(3);
        StudentId student = Fixtures.student();
        Booking first = held(slot, student);

        for (HoldCommand second : List.of(command(slot, student),
                command(slot, student, RequestId.random(), BookingStatus.CONFIRMED, now, false),
                gated(command(slot, student)))) {
            StoreOutcome<HoldResult> outcome = store().hold(tenant, second);
            assertThat(outcome.result()).isEqualTo(new AlreadyBooked(first));
            assertThat(outcome.events()).isEmpty();
            assertNothingWrittenFor(second);
        }
        Booking confirmed = ((Confirmed) confirm(first, now).result()).booking();
        assertThat(hold(slot, student, now).result()).isEqualTo(new AlreadyBooked(confirmed));
        assertThat(availability(slot, now)).isEqualTo(new Availability(slot.slotId(), SlotStatus.OPEN, 3, 0, 1, 2));

        assertThat(cancel(first, now).result()).isInstanceOf(Cancelled.class);
        Booking again = held(slot, student);
        assertThat(live(slot, now)).containsExactly(again);
        assertThat(held(slot(1), student).studentId()).as("another slot is fine").isEqualTo(student);
    }

    @Test
    void overlappingHoldsOfAStudentConflictNamingTheOtherBooking() {
        StudentId student = Fixtures.student();
        Slot existing = slot(range(60, 120), 5);
        Booking b = held(existing, student);

        int[][] shapes = {{60, 120}, {30, 90}, {90, 150}, {70, 80}, {0, 180}, {119, 121}, {59, 61}};
        for (int[] shape : shapes) {
            Slot newcomer = slot(range(shape[0], shape[1]), 5);
            for (HoldCommand cmd : List.of(command(newcomer, student), gated(command(newcomer, student)))) {
                StoreOutcome<HoldResult> outcome = store().hold(tenant, cmd);

                assertThat(clashes(outcome.result())).as("shape %s", newcomer.time()).containsExactly(
                        new ResourceConflict(ResourceRef.of(student), existing.slotId(), Optional.of(b.bookingId()),
                                existing.time()));
                assertThat(outcome.events()).isEmpty();
                assertNothingWrittenFor(cmd);
                assertThat(availability(newcomer, now).remaining()).isEqualTo(5);
            }
        }
        // back to back is fine, before and after
        held(slot(range(120, 180), 5), student);
        held(slot(range(0, 60), 5), student);
        assertThat(find(b.bookingId())).isEqualTo(b);
    }

    @Test
    void aCancelledOrExpiredBookingNoLongerBusiesTheStudent() {
        StudentId student = Fixtures.student();
        Slot a = slot(range(60, 120), 2);
        Slot b = slot(range(90, 150), 2);
        Slot c = slot(range(100, 160), 2);
        Booking first = held(a, student);
        assertThat(hold(b, student, now).result()).isInstanceOf(Conflict.class);

        assertThat(cancel(first, now).result()).isInstanceOf(Cancelled.class);
        StoreOutcome<HoldResult> next = hold(b, student, now);
        Booking second = granted(next);
        assertThat(next.events()).as("nothing to retire").containsExactly(new BookingEvent(Kind.HELD, second));

        assertThat(expired(tenant, second.heldUntil(), 10)).extracting(Booking::bookingId)
                .containsExactly(second.bookingId());
        Instant later = second.heldUntil().plusSeconds(1);
        StoreOutcome<HoldResult> third = hold(c, student, later);
        assertThat(third.events()).extracting(BookingEvent::kind).containsExactly(Kind.HELD);
        assertThat(granted(third).slotId()).isEqualTo(c.slotId());
    }

    @Test
    void aDeadHoldOfTheStudentDoesNotBlockAnOverlappingSlot() {
        StudentId student = Fixtures.student();
        Slot a = slot(range(60, 120), 2);
        Slot b = slot(range(90, 150), 2);
        Booking dead = held(a, student);
        Instant deadline = dead.heldUntil();

        assertThat(clashes(hold(b, student, deadline.minus(1, ChronoUnit.MICROS)).result()))
                .extracting(c -> c.bookingId().orElseThrow()).as("still live").containsExactly(dead.bookingId());

        StoreOutcome<HoldResult> outcome = hold(b, student, deadline);

        Booking fresh = granted(outcome);
        Booking retired = find(dead.bookingId());
        assertThat(retired.status()).isEqualTo(BookingStatus.EXPIRED);
        assertThat(retired.updatedAt()).isEqualTo(deadline);
        assertThat(outcome.events()).containsExactlyInAnyOrder(new BookingEvent(Kind.EXPIRED, retired),
                new BookingEvent(Kind.HELD, fresh));
        assertThat(availability(a, deadline).remaining()).isEqualTo(2);
        assertThat(live(b, deadline)).containsExactly(fresh);
        assertThat(expired(tenant, deadline, 10)).as("already expired").isEmpty();
    }

    @Test
    void aDeadHoldOfTheStudentInTheSameSlotIsRetiredNotAlreadyBooked() {
        StudentId student = Fixtures.student();
        Slot slot = slot(1);
        Booking dead = held(slot, student);
        Instant deadline = dead.heldUntil();

        assertThat(hold(slot, student, deadline.minus(1, ChronoUnit.MICROS)).result())
                .isEqualTo(new AlreadyBooked(dead));
        assertThat(live(slot, deadline)).isEmpty();

        StoreOutcome<HoldResult> outcome = hold(slot, student, deadline);

        Booking fresh = granted(outcome);
        Booking retired = find(dead.bookingId());
        assertThat(retired.status()).isEqualTo(BookingStatus.EXPIRED);
        assertThat(outcome.events()).containsExactlyInAnyOrder(new BookingEvent(Kind.EXPIRED, retired),
                new BookingEvent(Kind.HELD, fresh));
        assertThat(fresh.seat()).isEqualTo(1);
        assertThat(live(slot, deadline)).containsExactly(fresh);
    }

    @Test
    void anExpiredSeatOfAnotherStudentIsTakenOverWhenTheSlotIsFull() {
        Slot slot = slot(1);
        Booking first = held(slot, Fixtures.student());
        Instant deadline = first.heldUntil();

        HoldCommand early = command(slot, Fixtures.student(), RequestId.random(), BookingStatus.HELD,
                deadline.minusMillis(1), false);
        assertThat(store().hold(tenant, early).result()).as("hold still live").isEqualTo(new Full(slot.slotId()));
        assertNothingWrittenFor(early);
        assertThat(availability(slot, deadline)).as("live while now < heldUntil")
                .isEqualTo(new Availability(slot.slotId(), SlotStatus.OPEN, 1, 0, 0, 1));

        StoreOutcome<HoldResult> outcome = hold(slot, Fixtures.student(), deadline);

        Booking second = granted(outcome);
        Booking displaced = find(first.bookingId());
        assertThat(second.seat()).isEqualTo(first.seat());
        assertThat(displaced).isEqualTo(first.with(BookingStatus.EXPIRED, deadline));
        assertThat(outcome.events()).containsExactlyInAnyOrder(new BookingEvent(Kind.EXPIRED, displaced),
                new BookingEvent(Kind.HELD, second));
        assertThat(live(slot, deadline)).containsExactly(second);
        assertThat(expired(tenant, deadline.plus(Duration.ofDays(1)), 10)).extracting(Booking::bookingId)
                .as("expired once, by the take-over").containsExactly(second.bookingId());
        // the displaced student is free again, with nothing left to retire
        StoreOutcome<HoldResult> elsewhere = hold(slot(slot.time(), 2), first.studentId(), deadline);
        assertThat(elsewhere.events()).extracting(BookingEvent::kind).containsExactly(Kind.HELD);
    }

    @Test
    void aRefusedTakeOverLeavesTheExpiredHoldAlone() {
        Slot slot = slot(range(60, 120), 1);
        Booking first = held(slot, Fixtures.student());
        StudentId busy = Fixtures.student();
        Booking elsewhere = granted(hold(slot(range(90, 150), 2), busy, first.heldUntil().minusSeconds(1)));

        StoreOutcome<HoldResult> outcome = hold(slot, busy, first.heldUntil());

        assertThat(clashes(outcome.result())).extracting(c -> c.bookingId().orElseThrow())
                .containsExactly(elsewhere.bookingId());
        assertThat(outcome.events()).isEmpty();
        assertThat(find(first.bookingId())).isEqualTo(first);
        assertThat(live(slot, first.heldUntil().minusSeconds(1))).containsExactly(first);
    }

    @Test
    void concurrentTakeOversOfExpiredSeatsGiveEachSeatToOneStudent() {
        Slot slot = slot(3);
        List<Booking> first = List.of(held(slot, Fixtures.student()), held(slot, Fixtures.student()),
                held(slot, Fixtures.student()));
        Instant deadline = first.get(0).heldUntil();

        List<StoreOutcome<HoldResult>> outcomes = Concurrent.run(12, i -> hold(slot, Fixtures.student(), deadline));

        List<Booking> taken = outcomes.stream().filter(o -> o.result() instanceof Held)
                .map(BookingStoreContract::granted).toList();
        assertThat(outcomes).filteredOn(o -> !(o.result() instanceof Held))
                .allSatisfy(o -> assertThat(o.result()).isEqualTo(new Full(slot.slotId())));
        assertThat(taken).as("every expired seat taken over once").hasSize(3)
                .extracting(Booking::seat).doesNotHaveDuplicates();
        // read back from the store: the three new holds live, each first hold expired once
        assertThat(live(slot, deadline)).containsExactlyInAnyOrderElementsOf(taken);
        assertThat(first).allSatisfy(b -> assertThat(find(b.bookingId()).status()).isEqualTo(BookingStatus.EXPIRED));
        assertThat(availability(slot, deadline).remaining()).isZero();
    }

    @Test
    void aGateHeldHoldGetsTheSameAnswers() {
        // free seat
        Slot slot = slot(1);
        HoldCommand gated = gated(command(slot, Fixtures.student()));
        StoreOutcome<HoldResult> granted = store().hold(tenant, gated);
        Booking b = granted(granted);
        assertThat(granted.events()).containsExactly(new BookingEvent(Kind.HELD, b));
        // full: nothing written, not even the student's occupation
        HoldCommand refused = gated(command(slot, Fixtures.student()));
        assertThat(store().hold(tenant, refused).result()).isEqualTo(new Full(slot.slotId()));
        assertNothingWrittenFor(refused);
        StoreOutcome<HoldResult> elsewhere = store().hold(tenant,
                command(slot(slot.time(), 1), refused.request().studentId()));
        assertThat(elsewhere.events()).extracting(BookingEvent::kind).containsExactly(Kind.HELD);
        assertThat(live(slot, now)).containsExactly(b);
        // take-over of an expired seat
        StoreOutcome<HoldResult> takeOver = store().hold(tenant, command(slot, Fixtures.student(), RequestId.random(),
                BookingStatus.HELD, b.heldUntil(), true));
        assertThat(takeOver.events()).extracting(BookingEvent::kind)
                .containsExactlyInAnyOrder(Kind.EXPIRED, Kind.HELD);
        // not open, not found
        assertThat(store().cancelSlot(tenant, slot.slotId(), now).result()).isInstanceOf(SlotCancelled.class);
        assertThat(store().hold(tenant, gated(command(slot, Fixtures.student()))).result())
                .isEqualTo(new SlotNotOpen(slot.slotId(), SlotStatus.CANCELLED));
        Slot unknown = newSlot(range(0, 60), Fixtures.coach(), Fixtures.room(), 1);
        assertThat(store().hold(tenant, gated(command(unknown, Fixtures.student()))).result())
                .isEqualTo(new NotFound());
    }

    @Test
    void holdsOnAnEndedSlotAreSlotNotOpen() {
        Slot slot = slot(3);
        Instant end = slot.time().end();
        HoldCommand lastMicro = command(slot, Fixtures.student(), RequestId.random(), BookingStatus.HELD,
                end.minus(1, ChronoUnit.MICROS), false);
        Booking b = granted(store().hold(tenant, lastMicro));

        for (boolean gate : new boolean[] {false, true}) {
            HoldCommand late = command(slot, Fixtures.student(), RequestId.random(), BookingStatus.HELD, end, gate);
            StoreOutcome<HoldResult> outcome = store().hold(tenant, late);
            assertThat(outcome.result()).isEqualTo(new SlotNotOpen(slot.slotId(), SlotStatus.OPEN));
            assertThat(outcome.events()).isEmpty();
            assertNothingWrittenFor(late);
        }
        HoldCommand replay = command(slot, b.studentId(), b.requestId(), BookingStatus.HELD, end.plusSeconds(60),
                false);
        assertThat(store().hold(tenant, replay).result()).isEqualTo(new Held(b, true));
    }

    // ================================================================ confirm

    @Test
    void confirmOnlyALiveHoldAndOnlyOnce() {
        Slot slot = slot(3);
        Booking b = held(slot, Fixtures.student());
        Instant justBefore = b.heldUntil().minus(1, ChronoUnit.MICROS);

        StoreOutcome<ConfirmResult> outcome = confirm(b, justBefore);

        Booking confirmed = find(b.bookingId());
        assertThat(confirmed).isEqualTo(b.with(BookingStatus.CONFIRMED, justBefore));
        assertThat(outcome.result()).isEqualTo(new Confirmed(confirmed));
        assertThat(outcome.events()).containsExactly(new BookingEvent(Kind.CONFIRMED, confirmed));

        StoreOutcome<ConfirmResult> again = confirm(b, justBefore.plusSeconds(5));
        assertThat(again.result()).as("only once").isEqualTo(new Confirmed(confirmed));
        assertThat(again.events()).isEmpty();
        assertThat(find(b.bookingId())).isEqualTo(confirmed);

        Instant muchLater = b.heldUntil().plus(Duration.ofDays(1));
        assertThat(availability(slot, muchLater)).as("confirmed never runs out")
                .isEqualTo(new Availability(slot.slotId(), SlotStatus.OPEN, 3, 0, 1, 2));
        assertThat(expired(tenant, muchLater, 10)).isEmpty();
        assertThat(confirm(b, muchLater).result()).isEqualTo(new Confirmed(confirmed));
    }

    @Test
    void confirmAtOrAfterTheDeadlineExpiresTheHoldAndFreesItsSeat() {
        Slot slot = slot(1);
        Booking b = held(slot, Fixtures.student());
        Instant deadline = b.heldUntil();

        StoreOutcome<ConfirmResult> outcome = confirm(b, deadline);

        Booking expired = find(b.bookingId());
        assertThat(expired).isEqualTo(b.with(BookingStatus.EXPIRED, deadline));
        assertThat(outcome.result()).isEqualTo(new HoldExpired(expired));
        assertThat(outcome.events()).containsExactly(new BookingEvent(Kind.EXPIRED, expired));
        assertThat(availability(slot, deadline.minusSeconds(1)).remaining()).as("the seat is free").isEqualTo(1);
        assertThat(expired(tenant, deadline.plusSeconds(1), 10)).isEmpty();

        StoreOutcome<ConfirmResult> again = confirm(b, deadline.plusSeconds(1));
        assertThat(again.result()).isEqualTo(new HoldExpired(expired));
        assertThat(again.events()).isEmpty();
        StoreOutcome<HoldResult> next = hold(slot, Fixtures.student(), deadline.minusSeconds(1));
        assertThat(next.events()).as("nothing displaced").extracting(BookingEvent::kind).containsExactly(Kind.HELD);
        assertThat(granted(next).seat()).isEqualTo(b.seat());
        StoreOutcome<HoldResult> moved = hold(slot(slot.time(), 1), b.studentId(), deadline);
        assertThat(moved.events()).as("the student's time was freed").extracting(BookingEvent::kind)
                .containsExactly(Kind.HELD);

        Booking late = granted(hold(slot(2), Fixtures.student(), now));
        assertThat(confirm(late, late.heldUntil().plusSeconds(1)).result()).isInstanceOf(HoldExpired.class);
        assertThat(find(late.bookingId()).status()).isEqualTo(BookingStatus.EXPIRED);
    }

    @Test
    void confirmOfACancelledBookingIsAlreadyCancelled() {
        Booking b = held(slot(2), Fixtures.student());
        Booking cancelled = ((Cancelled) cancel(b, now).result()).booking();

        StoreOutcome<ConfirmResult> outcome = confirm(b, now);

        assertThat(outcome.result()).isEqualTo(new AlreadyCancelled());
        assertThat(outcome.events()).isEmpty();
        assertThat(find(b.bookingId())).isEqualTo(cancelled);
    }

    // ================================================================ cancel

    @Test
    void cancelOnceFreesTheSeat() {
        Slot slot = slot(1);
        Booking held = held(slot, Fixtures.student());
        Instant later = now.plusSeconds(5);

        StoreOutcome<CancelResult> outcome = cancel(held, later);

        Booking cancelled = find(held.bookingId());
        assertThat(cancelled).isEqualTo(held.with(BookingStatus.CANCELLED, later));
        assertThat(outcome.result()).isEqualTo(new Cancelled(cancelled));
        assertThat(outcome.events()).containsExactly(new BookingEvent(Kind.CANCELLED, cancelled));

        StoreOutcome<CancelResult> again = cancel(held, later.plusSeconds(5));
        assertThat(again.result()).isEqualTo(new AlreadyCancelled());
        assertThat(again.subject()).isEqualTo(cancelled);
        assertThat(again.events()).isEmpty();
        assertThat(find(held.bookingId())).as("changes nothing").isEqualTo(cancelled);
        assertThat(availability(slot, later).remaining()).isEqualTo(1);

        Booking next = held(slot, Fixtures.student());
        assertThat(next.seat()).isEqualTo(held.seat());
        Booking confirmed = ((Confirmed) confirm(next, now).result()).booking();
        StoreOutcome<CancelResult> cancelConfirmed = cancel(next, later);
        assertThat(cancelConfirmed.result()).isEqualTo(new Cancelled(confirmed.with(BookingStatus.CANCELLED, later)));
        assertThat(cancel(next, later).result()).isEqualTo(new AlreadyCancelled());
        assertThat(held(slot, Fixtures.student()).seat()).isEqualTo(1);
    }

    @Test
    void anotherStudentsOrTenantsBookingIsNotFound() {
        Slot slot = slot(2);
        Booking b = held(slot, Fixtures.student());
        StudentId stranger = Fixtures.student();
        TenantId otherTenant = Fixtures.tenant();

        assertThat(store().confirm(tenant, b.bookingId(), stranger, now, TERMS).result()).isEqualTo(new NotFound());
        assertThat(store().cancel(tenant, b.bookingId(), stranger, now, TERMS).result()).isEqualTo(new NotFound());
        assertThat(store().confirm(otherTenant, b.bookingId(), b.studentId(), now, TERMS).result()).isEqualTo(new NotFound());
        assertThat(store().cancel(otherTenant, b.bookingId(), b.studentId(), now, TERMS).result()).isEqualTo(new NotFound());
        assertThat(store().cancelSlot(otherTenant, slot.slotId(), now).result()).isEqualTo(new NotFound());
        assertThat(store().confirm(tenant, b.bookingId(), stranger, now, TERMS).events()).isEmpty();

        assertThat(find(b.bookingId())).isEqualTo(b);
        assertThat(live(slot, now)).containsExactly(b);
    }

    @Test
    void concurrentCancelsOfOneBookingCancelItOnce() {
        Slot slot = slot(2);
        Booking stays = held(slot, Fixtures.student());
        Booking goes = held(slot, Fixtures.student());

        List<StoreOutcome<CancelResult>> outcomes = Concurrent.run(20, i -> cancel(goes, now));

        assertThat(outcomes).filteredOn(o -> o.result() instanceof Cancelled).hasSize(1);
        assertThat(outcomes).filteredOn(o -> o.result() instanceof AlreadyCancelled).hasSize(19);
        assertThat(outcomes).flatExtracting(StoreOutcome::events).hasSize(1);
        assertThat(live(slot, now)).containsExactly(stays);
        List<StoreOutcome<HoldResult>> refill = Concurrent.run(5, i -> hold(slot, Fixtures.student(), now));
        assertThat(refill).filteredOn(o -> o.result() instanceof Held).as("exactly one seat came back").hasSize(1);
        assertThat(availability(slot, now).held()).isEqualTo(2);
    }

    @Test
    void concurrentConfirmsOfOneHoldConfirmItOnce() {
        Slot slot = slot(2);
        Booking b = held(slot, Fixtures.student());

        List<StoreOutcome<ConfirmResult>> outcomes = Concurrent.run(10, i -> confirm(b, now));

        assertThat(outcomes).allSatisfy(o -> assertThat(o.result()).isInstanceOf(Confirmed.class));
        assertThat(outcomes).flatExtracting(StoreOutcome::events).hasSize(1);
        assertThat(availability(slot, now)).isEqualTo(new Availability(slot.slotId(), SlotStatus.OPEN, 2, 0, 1, 1));
    }

    @Test
    void aConfirmRacingATakeOverOfItsSeatEitherConfirmsTheHoldOrLosesIt() {
        // confirms just before the deadline and other students' holds of the one seat just after it, at once:
        // the hold ends confirmed (every take-over refused) or expired (one take-over held), as answered
        for (int round = 0; round < 15; round++) {
            Slot slot = slot(1);
            Booking b = held(slot, Fixtures.student());
            Instant deadline = b.heldUntil();

            List<Object> answers = Concurrent.run(6, i -> i % 2 == 0
                    ? confirm(b, deadline.minus(1, ChronoUnit.MICROS)).result()
                    : hold(slot, Fixtures.student(), deadline).result());

            List<Object> confirms = List.of(answers.get(0), answers.get(2), answers.get(4));
            List<Object> holds = List.of(answers.get(1), answers.get(3), answers.get(5));
            Booking stored = find(b.bookingId());
            if (stored.status() == BookingStatus.CONFIRMED) {
                assertThat(confirms).as("round " + round).allSatisfy(a -> assertThat(a).isInstanceOf(Confirmed.class));
                assertThat(holds).as("round " + round).containsOnly(new Full(slot.slotId()));
            } else {
                assertThat(stored.status()).as("round " + round).isEqualTo(BookingStatus.EXPIRED);
                assertThat(confirms).as("round " + round).allSatisfy(a -> assertThat(a).isInstanceOf(HoldExpired.class));
                assertThat(holds).as("round " + round).filteredOn(Held.class::isInstance).hasSize(1);
            }
            assertThat(live(slot, deadline)).as("round " + round).hasSize(1);
        }
    }

    // ================================================================ cancelSlot

    @Test
    void cancelSlotCancelsEveryBookingOnceAndFreesEverything() {
        Slot slot = slot(range(60, 120), 5);
        Booking h1 = held(slot, Fixtures.student());
        Booking h2 = held(slot, Fixtures.student());
        Booking c = held(slot, Fixtures.student());
        Booking gone = held(slot, Fixtures.student());
        confirm(c, now);
        Booking goneCancelled = ((Cancelled) cancel(gone, now).result()).booking();
        Slot bystander = slot(range(60, 120), 1);
        Booking other = held(bystander, Fixtures.student());
        Instant at = now.plusSeconds(1);

        StoreOutcome<CancelSlotResult> outcome = store().cancelSlot(tenant, slot.slotId(), at);

        assertThat(outcome.result()).isEqualTo(new SlotCancelled(slot.withStatus(SlotStatus.CANCELLED), 3));
        List<Booking> after = List.of(find(h1.bookingId()), find(h2.bookingId()), find(c.bookingId()));
        assertThat(after).allSatisfy(b -> {
            assertThat(b.status()).isEqualTo(BookingStatus.CANCELLED);
            assertThat(b.updatedAt()).isEqualTo(at);
        });
        assertThat(outcome.events()).containsExactlyInAnyOrderElementsOf(
                after.stream().map(b -> new BookingEvent(Kind.CANCELLED, b)).toList());
        assertThat(find(gone.bookingId())).isEqualTo(goneCancelled);

        StoreOutcome<CancelSlotResult> again = store().cancelSlot(tenant, slot.slotId(), at.plusSeconds(1));
        assertThat(again.result()).isEqualTo(new AlreadyCancelled());
        assertThat(again.events()).isEmpty();
        assertThat(cancel(h1, at).result()).isEqualTo(new AlreadyCancelled());

        HoldCommand late = command(slot, Fixtures.student());
        assertThat(store().hold(tenant, late).result()).isEqualTo(new SlotNotOpen(slot.slotId(), SlotStatus.CANCELLED));
        assertNothingWrittenFor(late);
        HoldCommand replay = command(slot, h1.studentId(), h1.requestId(), BookingStatus.HELD, at, false);
        assertThat(store().hold(tenant, replay).result()).isEqualTo(new Held(after.get(0), true));

        assertThat(availability(slot, at)).isEqualTo(new Availability(slot.slotId(), SlotStatus.CANCELLED, 5, 0, 0, 0));
        assertThat(store().liveSlot(tenant, slot.slotId(), at))
                .contains(new LiveSlot(slot.withStatus(SlotStatus.CANCELLED), List.of()));
        assertThat(store().slots(tenant, null, 10)).contains(slot.withStatus(SlotStatus.CANCELLED), bystander);
        assertThat(find(other.bookingId())).isEqualTo(other);
        assertThat(live(bystander, at)).containsExactly(other);

        // coach, room and students are free again
        schedule(newSlot(range(90, 150), slot.coachId(), slot.roomId(), 2));
        StoreOutcome<HoldResult> moved = hold(slot(range(60, 120), 3), h1.studentId(), at);
        assertThat(moved.events()).extracting(BookingEvent::kind).containsExactly(Kind.HELD);
        assertThat(store().cancelSlot(tenant, Fixtures.slot(), at).result()).isEqualTo(new NotFound());
    }

    // ================================================================ expireDue

    @Test
    void expireDueExpiresEachDueHoldOnceInBatches() {
        Slot a = slot(20);
        Slot b = slot(20);
        Instant deadline = now.plus(Duration.ofMinutes(1));
        Set<BookingId> due = new HashSet<>();
        for (int i = 0; i < 7; i++) {
            due.add(heldUntil(i % 2 == 0 ? a : b, deadline.minusSeconds(i)).bookingId());
        }
        Booking later = heldUntil(a, deadline.plusSeconds(1));
        Booking confirmed = heldUntil(b, deadline.minusSeconds(30));
        confirm(confirmed, now);

        Set<BookingId> expired = new HashSet<>();
        List<Integer> batches = new ArrayList<>();
        List<Booking> batch;
        do {
            assertThat(batches).as("expireDue keeps answering").hasSizeLessThan(10);
            batch = expired(tenant, deadline, 3);
            batches.add(batch.size());
            for (Booking e : batch) {
                assertThat(expired.add(e.bookingId())).as("expired twice: " + e.bookingId()).isTrue();
                assertThat(e.status()).isEqualTo(BookingStatus.EXPIRED);
                assertThat(e.updatedAt()).isEqualTo(deadline);
                assertThat(find(e.bookingId())).as("returned as it is now").isEqualTo(e);
            }
        } while (!batch.isEmpty());

        assertThat(batches).containsExactly(3, 3, 1, 0);
        assertThat(expired).isEqualTo(due);
        assertThat(find(later.bookingId()).status()).isEqualTo(BookingStatus.HELD);
        assertThat(find(confirmed.bookingId()).status()).isEqualTo(BookingStatus.CONFIRMED);
        assertThat(availability(a, deadline).held()).isEqualTo(1);
        assertThat(availability(b, deadline).confirmed()).isEqualTo(1);
        assertThat(availability(a, now).held() + availability(b, now).held()).as("expired for good").isEqualTo(1);
    }

    @Test
    void expireDueTakesOnlyAHoldThatRanOut() {
        Slot slot = slot(range(60, 120), 1);
        Booking b = held(slot, Fixtures.student());
        Instant deadline = b.heldUntil();

        assertThat(expired(tenant, deadline.minus(1, ChronoUnit.MICROS), 10)).isEmpty();
        assertThat(find(b.bookingId())).isEqualTo(b);
        assertThat(expired(tenant, deadline, 10)).containsExactly(b.with(BookingStatus.EXPIRED, deadline));
        assertThat(expired(tenant, deadline, 10)).isEmpty();

        StoreOutcome<CancelResult> cancel = cancel(b, deadline);
        assertThat(cancel.result()).as("expired is not active").isEqualTo(new AlreadyCancelled());
        assertThat(cancel.events()).isEmpty();
        StoreOutcome<ConfirmResult> confirm = confirm(b, now);
        assertThat(confirm.result()).isEqualTo(new HoldExpired(b.with(BookingStatus.EXPIRED, deadline)));
        assertThat(confirm.events()).isEmpty();

        StoreOutcome<HoldResult> next = hold(slot, Fixtures.student(), now);
        assertThat(granted(next).seat()).isEqualTo(b.seat());
        assertThat(next.events()).extracting(BookingEvent::kind).containsExactly(Kind.HELD);
        StoreOutcome<HoldResult> moved = hold(slot(range(90, 150), 1), b.studentId(), now);
        assertThat(moved.events()).as("the student's time was freed").extracting(BookingEvent::kind)
                .containsExactly(Kind.HELD);
    }

    @Test
    void concurrentSweepersExpireEachDueHoldExactlyOnce() {
        Slot slot = slot(60);
        Instant deadline = now.plus(Duration.ofMinutes(1));
        Set<BookingId> due = new HashSet<>();
        for (int i = 0; i < 40; i++) {
            due.add(heldUntil(slot, deadline.minusMillis(i)).bookingId());
        }
        Booking live = heldUntil(slot, deadline.plusMillis(1));

        List<List<Booking>> swept = Concurrent.run(4, i -> {
            List<Booking> mine = new ArrayList<>();
            List<Booking> batch;
            do {
                assertThat(mine).as("expireDue keeps answering").hasSizeLessThan(100);
                batch = expired(tenant, deadline, 3);
                mine.addAll(batch);
            } while (!batch.isEmpty());
            return mine;
        });

        List<Booking> all = swept.stream().flatMap(List::stream).toList();
        assertThat(all).extracting(Booking::bookingId).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(due);
        assertThat(all).allSatisfy(b -> assertThat(find(b.bookingId())).isEqualTo(b)
                .extracting(Booking::status).isEqualTo(BookingStatus.EXPIRED));
        assertThat(live(slot, deadline)).containsExactly(live);
        assertThat(availability(slot, now).held()).isEqualTo(1);
    }

    // ================================================================ reads

    @Test
    void slotsArePagedInIdOrder() {
        List<SlotId> ids = IntStream.rangeClosed(1, 7).mapToObj(i -> SlotId.of("page-" + i)).toList();
        List<SlotId> shuffled = new ArrayList<>(ids);
        java.util.Collections.shuffle(shuffled, Fixtures.random("slotsArePagedInIdOrder"));
        shuffled.forEach(id -> schedule(new Slot(tenant, id, Fixtures.coach(), Fixtures.room(), range(0, 60), 2,
                SlotStatus.OPEN)));

        List<SlotId> seen = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        SlotId after = null;
        for (int pages = 0; ; pages++) {
            assertThat(pages).as("paging does not end: a page starts at or before its 'after'").isLessThan(10);
            List<Slot> page = store().slots(tenant, after, 3);
            sizes.add(page.size());
            if (page.isEmpty()) {
                break;
            }
            page.forEach(s -> seen.add(s.slotId()));
            after = page.get(page.size() - 1).slotId();
        }

        assertThat(seen).containsExactlyElementsOf(ids);
        assertThat(sizes).containsExactly(3, 3, 1, 0);
        assertThat(store().slots(tenant, SlotId.of("page-7"), 3)).isEmpty();
        assertThat(store().slots(tenant, SlotId.of("page-0"), 1)).extracting(Slot::slotId)
                .containsExactly(SlotId.of("page-1"));
    }

    @Test
    void availabilityAndLiveSlotAgree() {
        Slot slot = slot(4);
        Booking longHold = held(slot, Fixtures.student());
        Booking shortHold = heldUntil(slot, now.plus(Duration.ofMinutes(1)));
        Booking confirmed = granted(store().hold(tenant,
                command(slot, Fixtures.student(), RequestId.random(), BookingStatus.CONFIRMED, now, false)));
        Booking cancelled = held(slot, Fixtures.student());
        cancel(cancelled, now);

        assertAgree(slot, now, longHold, shortHold, confirmed);
        assertAgree(slot, shortHold.heldUntil().minus(1, ChronoUnit.MICROS), longHold, shortHold, confirmed);
        assertAgree(slot, shortHold.heldUntil(), longHold, confirmed);
        assertAgree(slot, longHold.heldUntil(), confirmed);
        assertAgree(slot, now.plus(Duration.ofDays(1)), confirmed);

        held(slot, Fixtures.student());
        assertAgree(slot, now, longHold, shortHold, confirmed, live(slot, now).stream()
                .filter(b -> !List.of(longHold, shortHold, confirmed).contains(b)).findFirst().orElseThrow());
        assertThat(hold(slot, Fixtures.student(), now).result()).isEqualTo(new Full(slot.slotId()));
        assertThat(hold(slot, Fixtures.student(), shortHold.heldUntil()).result()).isInstanceOf(Held.class);
    }

    @Test
    void unknownIdsAreEmptyOrNotFound() {
        SlotId slotId = Fixtures.slot();
        Slot unknown = new Slot(tenant, slotId, Fixtures.coach(), Fixtures.room(), range(0, 60), 1, SlotStatus.OPEN);
        StudentId student = Fixtures.student();

        assertThat(store().availability(tenant, slotId, now)).isEmpty();
        assertThat(store().liveSlot(tenant, slotId, now)).isEmpty();
        assertThat(store().findBooking(tenant, BookingId.random())).isEmpty();
        assertThat(store().findByRequest(tenant, RequestId.random())).isEmpty();
        assertThat(store().slots(tenant, null, 10)).isEmpty();
        assertThat(expired(tenant, now.plus(Duration.ofDays(30)), 10)).isEmpty();
        HoldCommand cmd = command(unknown, student);
        StoreOutcome<HoldResult> hold = store().hold(tenant, cmd);
        assertThat(hold.result()).isEqualTo(new NotFound());
        assertThat(hold.events()).isEmpty();
        assertNothingWrittenFor(cmd);
        assertThat(store().confirm(tenant, BookingId.random(), student, now, TERMS).result()).isEqualTo(new NotFound());
        assertThat(store().cancel(tenant, BookingId.random(), student, now, TERMS).result()).isEqualTo(new NotFound());
        assertThat(store().cancelSlot(tenant, slotId, now).result()).isEqualTo(new NotFound());
        assertThat(store().slots(tenant, null, 10)).as("nothing was created on the way").isEmpty();
    }

    @Test
    void eventsCarryTheBookingAsItIsAfterTheChange() {
        Slot slot = slot(2);
        List<BookingEvent> events = new ArrayList<>();
        Booking a = granted(record(events, store().hold(tenant, command(slot, Fixtures.student()))));
        Booking b = granted(record(events, store().hold(tenant,
                command(slot, Fixtures.student(), RequestId.random(), BookingStatus.CONFIRMED, now, false))));
        record(events, confirm(a, now.plusSeconds(1)));
        record(events, cancel(a, now.plusSeconds(2)));
        Booking c = held(slot, Fixtures.student());
        record(events, confirm(c, c.heldUntil()));
        Booking d = held(slot, Fixtures.student());
        record(events, hold(slot, Fixtures.student(), d.heldUntil()));
        record(events, store().cancelSlot(tenant, slot.slotId(), d.heldUntil().plusSeconds(1)));

        assertThat(events).extracting(BookingEvent::kind).containsExactlyInAnyOrder(Kind.HELD, Kind.CONFIRMED,
                Kind.CONFIRMED, Kind.CANCELLED, Kind.EXPIRED, Kind.EXPIRED, Kind.HELD, Kind.CANCELLED, Kind.CANCELLED);
        for (BookingEvent e : events) {
            Booking read = find(e.booking().bookingId());
            assertThat(e.booking().tenantId()).isEqualTo(tenant);
            assertThat(e.booking().status()).as("%s", e).isEqualTo(switch (e.kind()) {
                case HELD -> BookingStatus.HELD;
                case CONFIRMED -> BookingStatus.CONFIRMED;
                case CANCELLED, LATE_CANCELLED -> BookingStatus.CANCELLED;
                case EXPIRED -> BookingStatus.EXPIRED;
                case PROMOTED -> BookingStatus.HELD;
                case CHECKED_IN, NO_SHOW -> BookingStatus.CONFIRMED;
            });
            if (e.booking().status() == read.status()) {
                assertThat(e.booking()).as("%s", e).isEqualTo(read);
            } else {
                assertThat(e.booking().updatedAt()).as("changed again later: %s", e).isBefore(read.updatedAt());
            }
        }
        assertThat(find(b.bookingId()).status()).isEqualTo(BookingStatus.CANCELLED);
    }

    // ================================================================ tenants

    /*
     * The backend may be shared with other tests and earlier runs: these tests assert only on
     * tenants whose ids start with a prefix of their own, read as pages after that prefix.
     */

    @Test
    void tenantsArePagedInIdOrder() {
        String prefix = "tp-" + Fixtures.shortRandom() + "-";
        List<TenantId> ids = IntStream.rangeClosed(1, 5).mapToObj(i -> TenantId.of(prefix + i)).toList();
        List<TenantId> shuffled = new ArrayList<>(ids);
        java.util.Collections.shuffle(shuffled, Fixtures.random("tenantsArePagedInIdOrder"));
        shuffled.forEach(t -> schedule(new Slot(t, Fixtures.slot(), Fixtures.coach(), Fixtures.room(), range(0, 60), 1,
                SlotStatus.OPEN)));

        TenantId start = TenantId.of(prefix);
        assertThat(store().tenants(start, 2)).containsExactly(ids.get(0), ids.get(1));
        assertThat(store().tenants(ids.get(1), 2)).containsExactly(ids.get(2), ids.get(3));
        assertThat(store().tenants(ids.get(3), 1)).containsExactly(ids.get(4));
        assertThat(store().tenants(ids.get(0), 3)).as("after is exclusive").containsExactly(ids.get(1), ids.get(2),
                ids.get(3));
        assertThat(store().tenants(ids.get(4), 5)).as("nothing of ours after the last")
                .noneMatch(t -> t.value().startsWith(prefix));

        List<TenantId> seen = new ArrayList<>();
        TenantId after = start;
        for (int pages = 0; pages < 10; pages++) {
            List<TenantId> page = store().tenants(after, 2);
            assertThat(page).hasSizeLessThanOrEqualTo(2).isSorted().doesNotHaveDuplicates()
                    .allMatch(t -> t.compareTo(start) > 0);
            page.stream().filter(t -> t.value().startsWith(prefix)).forEach(seen::add);
            if (page.size() < 2 || !page.get(page.size() - 1).value().startsWith(prefix)) {
                break;
            }
            after = page.get(page.size() - 1);
        }
        assertThat(seen).containsExactlyElementsOf(ids);
        assertThat(store().tenants(null, 3)).hasSizeLessThanOrEqualTo(3).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void aTenantIsListedOnceFromItsFirstSlotOn() {
        String prefix = "tl-" + Fixtures.shortRandom() + "-";
        TenantId quiet = TenantId.of(prefix + "a-quiet");
        TenantId busy = TenantId.of(prefix + "b-busy");
        TenantId cancelled = TenantId.of(prefix + "c-cancelled");

        // reads and refused decisions leave no trace
        SlotId unknown = Fixtures.slot();
        assertThat(store().availability(quiet, unknown, now)).isEmpty();
        assertThat(store().slots(quiet, null, 10)).isEmpty();
        assertThat(expired(quiet, now, 10)).isEmpty();
        assertThat(store().hold(quiet, new HoldCommand(BookingId.random(),
                HoldRequest.of(RequestId.random(), unknown, Fixtures.student()), BookingStatus.HELD, now, TTL, LONGEST,
                false)).result()).isEqualTo(new NotFound());
        assertThat(store().cancelSlot(quiet, unknown, now).result()).isEqualTo(new NotFound());
        assertThat(ours(prefix)).isEmpty();

        for (int i = 0; i < 3; i++) {
            schedule(new Slot(busy, Fixtures.slot(), Fixtures.coach(), Fixtures.room(), range(i * 60, i * 60 + 60), 1,
                    SlotStatus.OPEN));
        }
        Slot off = schedule(new Slot(cancelled, Fixtures.slot(), Fixtures.coach(), Fixtures.room(), range(0, 60), 1,
                SlotStatus.OPEN));
        assertThat(store().cancelSlot(cancelled, off.slotId(), now).result()).isInstanceOf(SlotCancelled.class);

        assertThat(ours(prefix)).as("one entry per tenant with a slot, a cancelled one included")
                .containsExactly(busy, cancelled);
    }

    @Test
    void tenantsRefusesALimitBelowOne() {
        assertRefused(() -> store().tenants(null, 0), "limit");
        assertRefused(() -> store().tenants(tenant, -1), "limit");
    }

    /** The tenants whose ids start with {@code prefix}, read in pages of 2 after it. */
    private List<TenantId> ours(String prefix) {
        List<TenantId> mine = new ArrayList<>();
        TenantId after = TenantId.of(prefix);
        while (true) {
            List<TenantId> page = store().tenants(after, 2);
            page.stream().filter(t -> t.value().startsWith(prefix)).forEach(mine::add);
            if (page.size() < 2 || !page.get(page.size() - 1).value().startsWith(prefix)) {
                return mine;
            }
            after = page.get(page.size() - 1);
        }
    }

    // ================================================================ isolation and data

    @Test
    void tenantsWithTheSameIdsNeverSeeEachOther() {
        TenantId one = tenant;
        TenantId two = Fixtures.tenant();
        TenantId third = Fixtures.tenant();
        Slot s1 = schedule(newSlot(range(0, 60), Fixtures.coach(), Fixtures.room(), 1));
        Slot s2 = new Slot(two, s1.slotId(), s1.coachId(), s1.roomId(), s1.time(), 1, SlotStatus.OPEN);
        assertThat(store().schedule(two, s2, LONGEST, UTC)).isEqualTo(new Scheduled(s2));
        BookingId sameBooking = BookingId.random();
        RequestId sameRequest = RequestId.random();
        StudentId sameStudent = Fixtures.student();
        HoldCommand cmd = new HoldCommand(sameBooking, HoldRequest.of(sameRequest, s1.slotId(), sameStudent),
                BookingStatus.HELD, now, TTL, LONGEST, false);
        Booking b1 = granted(store().hold(one, cmd));
        Booking b2 = granted(store().hold(two, cmd));
        assertThat(b1.tenantId()).isEqualTo(one);
        assertThat(b2.tenantId()).isEqualTo(two);

        assertThat(store().slots(third, null, 10)).isEmpty();
        assertThat(store().availability(third, s1.slotId(), now)).isEmpty();
        assertThat(store().liveSlot(third, s1.slotId(), now)).isEmpty();
        assertThat(store().findBooking(third, sameBooking)).isEmpty();
        assertThat(store().findByRequest(third, sameRequest)).isEmpty();
        assertThat(store().hold(third, cmd).result()).isEqualTo(new NotFound());
        assertThat(store().confirm(third, sameBooking, sameStudent, now, TERMS).result()).isEqualTo(new NotFound());
        assertThat(store().cancel(third, sameBooking, sameStudent, now, TERMS).result()).isEqualTo(new NotFound());
        assertThat(store().cancelSlot(third, s1.slotId(), now).result()).isEqualTo(new NotFound());
        assertThat(expired(third, b1.heldUntil().plusSeconds(1), 10)).isEmpty();

        assertThat(cancel(b1, now).result()).isInstanceOf(Cancelled.class);
        assertThat(store().findBooking(two, sameBooking)).contains(b2);
        assertThat(store().availability(two, s2.slotId(), now)).map(Availability::held).contains(1);
        assertThat(availability(s1, now).held()).isZero();
        assertThat(expired(two, b2.heldUntil(), 10)).containsExactly(
                b2.with(BookingStatus.EXPIRED, b2.heldUntil()));
        assertThat(store().cancelSlot(two, s2.slotId(), now).result())
                .isEqualTo(new SlotCancelled(s2.withStatus(SlotStatus.CANCELLED), 0));
        assertThat(store().slots(one, null, 10)).containsExactly(s1);
        assertThat(store().slots(two, null, 10)).containsExactly(s2.withStatus(SlotStatus.CANCELLED));
        assertThat(find(b1.bookingId())).isEqualTo(b1.with(BookingStatus.CANCELLED, now));
    }

    @Test
    void idsAreStoredAndFoundAsPlainData() {
        String[] nasty = {"it's", "a\"b", "x; DROP TABLE slot; --", "100%", "_", "%", "a_b", "{tag}", "back\\slash",
            "学生-Ω-é", "emoji-🎓", "*", "?", "[x]", "$1", ":colon:", "st' OR '1'='1"};
        tenant = TenantId.of("o'brien\"; DROP TABLE booking; -- " + Fixtures.shortRandom());
        SlotId slotId = SlotId.of("slot ' ; % _ { } 時間 " + Fixtures.shortRandom());
        Slot slot = schedule(new Slot(tenant, slotId, CoachId.of("c'; -- " + Fixtures.shortRandom()),
                RoomId.of("r\"; /* " + Fixtures.shortRandom()), range(0, 60), nasty.length, SlotStatus.OPEN));
        List<Booking> booked = new ArrayList<>();
        for (String s : nasty) {
            booked.add(granted(store().hold(tenant, new HoldCommand(BookingId.of("b-" + s),
                    HoldRequest.of(RequestId.of("r-" + s), slotId, StudentId.of(s)), BookingStatus.HELD, now, TTL,
                    LONGEST, false))));
        }

        assertThat(store().slots(tenant, null, 10)).containsExactly(slot);
        for (Booking b : booked) {
            assertThat(store().findBooking(tenant, b.bookingId())).contains(b);
            assertThat(store().findByRequest(tenant, b.requestId())).contains(b);
            assertThat(hold(slot, b.studentId(), now).result()).isEqualTo(new AlreadyBooked(b));
        }
        assertThat(hold(slot, StudentId.of("a%"), now).result()).as("no seat left, and no match by pattern")
                .isEqualTo(new Full(slotId));
        assertThat(store().findBooking(tenant, BookingId.of("b-%%"))).isEmpty();
        assertThat(store().findByRequest(tenant, RequestId.of("r-%%"))).isEmpty();
        assertThat(live(slot, now)).containsExactlyInAnyOrderElementsOf(booked);
        assertThat(store().cancel(tenant, BookingId.of("b-%"), StudentId.of("%"), now, TERMS).result())
                .isInstanceOf(Cancelled.class);
        assertThat(store().cancel(tenant, BookingId.of("b-_"), StudentId.of("%"), now, TERMS).result())
                .isEqualTo(new NotFound());
        assertThat(find(BookingId.of("b-100%")).status()).isEqualTo(BookingStatus.HELD);
        assertThat(find(BookingId.of("b-_")).status()).isEqualTo(BookingStatus.HELD);
        assertThat(availability(slot, now).remaining()).isEqualTo(1);
    }

    @Test
    void instantsRoundTripAtMicrosecondPrecision() {
        Instant start = base.plus(Duration.ofDays(1)).plusNanos(123_456_000);
        Slot slot = schedule(new Slot(tenant, Fixtures.slot(), Fixtures.coach(), Fixtures.room(),
                TimeRange.of(start, start.plus(Duration.ofMinutes(45)).plusNanos(1_000)), 2, SlotStatus.OPEN));
        Instant at = now.plusNanos(987_654);
        Duration ttl = TTL.plusNanos(654_321_000);

        Booking b = granted(store().hold(tenant, new HoldCommand(BookingId.random(),
                HoldRequest.of(RequestId.random(), slot.slotId(), Fixtures.student()), BookingStatus.HELD, at, ttl,
                LONGEST, false)));

        assertThat(store().slots(tenant, null, 10)).containsExactly(slot);
        Instant micros = at.truncatedTo(ChronoUnit.MICROS);
        Booking read = find(b.bookingId());
        assertThat(read).isEqualTo(b);
        assertThat(read.createdAt()).isEqualTo(micros);
        assertThat(read.heldUntil()).isEqualTo(micros.plus(ttl));
        Instant lastMicro = read.heldUntil().minus(1, ChronoUnit.MICROS);
        assertThat(live(slot, lastMicro)).containsExactly(read);
        assertThat(availability(slot, lastMicro).held()).isEqualTo(1);
        assertThat(live(slot, read.heldUntil())).isEmpty();
        assertThat(availability(slot, read.heldUntil()).held()).isZero();
        assertThat(expired(tenant, lastMicro, 10)).isEmpty();
        assertThat(expired(tenant, read.heldUntil(), 10)).extracting(Booking::bookingId)
                .containsExactly(b.bookingId());
    }

    @Test
    void aNullNowIsTheStoresOwnClock() {
        Slot slot = schedule(newSlot(TimeRange.of(Fixtures.nextHour(Instant.now()), Duration.ofHours(1)),
                Fixtures.coach(), Fixtures.room(), 2));
        Duration slack = Duration.ofMinutes(2);
        Instant before = Instant.now();

        Booking b = granted(store().hold(tenant, new HoldCommand(BookingId.random(),
                HoldRequest.of(RequestId.random(), slot.slotId(), Fixtures.student()), BookingStatus.HELD, null, TTL,
                LONGEST, false)));

        Instant after = Instant.now();
        assertThat(b.createdAt()).isBetween(before.minus(slack), after.plus(slack));
        assertThat(b.heldUntil()).isEqualTo(b.createdAt().plus(TTL));
        assertThat(store().availability(tenant, slot.slotId(), null)).map(Availability::held).contains(1);
        assertThat(store().liveSlot(tenant, slot.slotId(), null)).map(LiveSlot::live).contains(List.of(b));
        assertThat(expired(tenant, null, 10)).isEmpty();
        StoreOutcome<ConfirmResult> confirmed = store().confirm(tenant, b.bookingId(), b.studentId(), null, TERMS);
        assertThat(confirmed.result()).isInstanceOf(Confirmed.class);
        assertThat(((Confirmed) confirmed.result()).booking().updatedAt())
                .isBetween(b.createdAt(), Instant.now().plus(slack));
        StoreOutcome<CancelResult> cancelled = store().cancel(tenant, b.bookingId(), b.studentId(), null, TERMS);
        assertThat(cancelled.result()).isInstanceOf(Cancelled.class);
        assertThat(store().cancelSlot(tenant, slot.slotId(), null).result()).isInstanceOf(SlotCancelled.class);
    }

    @Test
    void badInputIsRefusedNamingTheField() {
        Slot slot = newSlot(range(0, 60), Fixtures.coach(), Fixtures.room(), 1);
        HoldCommand cmd = command(slot, Fixtures.student());
        BookingId id = BookingId.random();
        StudentId student = Fixtures.student();

        assertRefused(() -> store().schedule(null, slot, LONGEST, UTC), "tenantId");
        assertRefused(() -> store().schedule(tenant, null, LONGEST, UTC), "slot");
        assertRefused(() -> store().hold(null, cmd), "tenantId");
        assertRefused(() -> store().hold(tenant, null), "command");
        assertRefused(() -> store().confirm(null, id, student, now, TERMS), "tenantId");
        assertRefused(() -> store().confirm(tenant, null, student, now, TERMS), "bookingId");
        assertRefused(() -> store().confirm(tenant, id, null, now, TERMS), "studentId");
        assertRefused(() -> store().cancel(null, id, student, now, TERMS), "tenantId");
        assertRefused(() -> store().cancel(tenant, null, student, now, TERMS), "bookingId");
        assertRefused(() -> store().cancelSlot(null, slot.slotId(), now), "tenantId");
        assertRefused(() -> store().cancelSlot(tenant, null, now), "slotId");
        assertRefused(() -> store().expireDue(null, now, 10, TERMS), "tenantId");
        assertRefused(() -> store().expireDue(tenant, now, 0, TERMS), "limit");
        assertRefused(() -> store().availability(null, slot.slotId(), now), "tenantId");
        assertRefused(() -> store().availability(tenant, null, now), "slotId");
        assertRefused(() -> store().liveSlot(null, slot.slotId(), now), "tenantId");
        assertRefused(() -> store().liveSlot(tenant, null, now), "slotId");
        assertRefused(() -> store().findBooking(null, id), "tenantId");
        assertRefused(() -> store().findBooking(tenant, null), "bookingId");
        assertRefused(() -> store().findByRequest(null, RequestId.random()), "tenantId");
        assertRefused(() -> store().findByRequest(tenant, null), "requestId");
        assertRefused(() -> store().slots(null, null, 10), "tenantId");
        assertRefused(() -> store().slots(tenant, null, 0), "limit");

        assertThat(store().slots(tenant, null, 10)).as("nothing was written").isEmpty();
        assertThat(store().schedule(tenant, slot, LONGEST, UTC)).isEqualTo(new Scheduled(slot));
    }

    // ================================================================ concurrency

    @Test
    void aStudentRacingIntoTenOverlappingSlotsGetsOne() {
        for (int round = 0; round < 3; round++) {
            StudentId student = Fixtures.student();
            List<Slot> slots = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                slots.add(slot(range(round * 300 + 60 + i, round * 300 + 120 + i), 5));
            }

            List<StoreOutcome<HoldResult>> outcomes = Concurrent.run(10,
                    i -> store().hold(tenant, command(slots.get(i), student, RequestId.random(), BookingStatus.HELD,
                            now, i % 2 == 1)));

            assertThat(outcomes).filteredOn(o -> o.result() instanceof Held).hasSize(1);
            assertThat(outcomes).filteredOn(o -> o.result() instanceof Conflict).hasSize(9);
            List<Booking> live = slots.stream().flatMap(s -> live(s, now).stream()).toList();
            assertThat(live).as("read back").hasSize(1);
            assertThat(live.get(0).studentId()).isEqualTo(student);
        }
    }

    @Test
    void studentsRacingForTwoOverlappingSlotsGetOneEach() {
        Slot morning = slot(range(60, 120), 20);
        Slot overlapping = slot(range(90, 150), 20);
        int students = 20;
        List<StudentId> ids = IntStream.range(0, students).mapToObj(i -> Fixtures.student()).toList();

        List<StoreOutcome<HoldResult>> outcomes = Concurrent.run(students * 2,
                i -> hold(i % 2 == 0 ? morning : overlapping, ids.get(i / 2), now));

        assertThat(outcomes).filteredOn(o -> o.result() instanceof Held).hasSize(students);
        assertThat(outcomes).filteredOn(o -> o.result() instanceof Conflict).hasSize(students);
        List<Booking> live = new ArrayList<>(live(morning, now));
        live.addAll(live(overlapping, now));
        assertThat(live).extracting(Booking::studentId).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(availability(morning, now).held() + availability(overlapping, now).held()).isEqualTo(students);
    }

    // ================================================================ helpers

    private void assertAgree(Slot slot, Instant at, Booking... expected) {
        LiveSlot liveSlot = store().liveSlot(tenant, slot.slotId(), at).orElseThrow();
        Availability availability = availability(slot, at);
        assertThat(liveSlot.slot()).isEqualTo(slot);
        assertThat(liveSlot.live()).as("live at %s", at).containsExactlyInAnyOrder(expected);
        assertThat(availability.held()).as("held at %s", at)
                .isEqualTo((int) liveSlot.live().stream().filter(b -> b.status() == BookingStatus.HELD).count());
        assertThat(availability.confirmed()).as("confirmed at %s", at)
                .isEqualTo((int) liveSlot.live().stream().filter(b -> b.status() == BookingStatus.CONFIRMED).count());
        assertThat(availability.remaining()).as("remaining at %s", at)
                .isEqualTo(slot.capacity() - liveSlot.live().size());
        assertThat(availability.capacity()).isEqualTo(slot.capacity());
        assertThat(availability.status()).isEqualTo(SlotStatus.OPEN);
    }

    private static void assertRefused(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String field) {
        assertThatThrownBy(call).as(field).isInstanceOf(org.slotbook.core.InvalidInputException.class)
                .hasMessageContaining(field);
    }

    private static <R> StoreOutcome<R> record(List<BookingEvent> events, StoreOutcome<R> outcome) {
        events.addAll(outcome.events());
        return outcome;
    }

    /** Nothing of this command was stored: no booking under its id or request id. */
    protected void assertNothingWrittenFor(HoldCommand cmd) {
        assertThat(store().findBooking(tenant, cmd.bookingId())).as("booking of a refused hold").isEmpty();
        assertThat(store().findByRequest(tenant, cmd.request().requestId())).as("request of a refused hold")
                .isEmpty();
    }

    protected TimeRange range(int fromMinute, int toMinute) {
        return TimeRange.of(base.plus(Duration.ofMinutes(fromMinute)), base.plus(Duration.ofMinutes(toMinute)));
    }

    protected Slot newSlot(TimeRange time, CoachId coach, RoomId room, int capacity) {
        return new Slot(tenant, Fixtures.slot(), coach, room, time, capacity, SlotStatus.OPEN);
    }

    /** Schedules the slot, which must be stored as given. */
    protected Slot schedule(Slot slot) {
        assertThat(store().schedule(slot.tenantId(), slot, LONGEST, UTC)).isEqualTo(new Scheduled(slot));
        return slot;
    }

    /**
     * A stored OPEN slot with its own coach and room, at a time no other slot of this helper uses
     * (ten days and more from {@link #base}), so a student may hold seats in several of them.
     */
    protected Slot slot(int capacity) {
        Instant start = base.plus(Duration.ofDays(10)).plus(Duration.ofHours(2L * slotsMade++));
        return slot(TimeRange.of(start, Duration.ofHours(1)), capacity);
    }

    protected Slot slot(TimeRange time, int capacity) {
        return schedule(newSlot(time, Fixtures.coach(), Fixtures.room(), capacity));
    }

    protected HoldCommand command(Slot slot, StudentId student) {
        return command(slot, student, RequestId.random(), BookingStatus.HELD, now, false);
    }

    protected HoldCommand command(Slot slot, StudentId student, RequestId request, BookingStatus status, Instant at,
                                  boolean gateHeld) {
        return new HoldCommand(BookingId.random(), HoldRequest.of(request, slot.slotId(), student), status, at, TTL,
                LONGEST, gateHeld);
    }

    protected static HoldCommand gated(HoldCommand cmd) {
        return new HoldCommand(BookingId.random(), cmd.request(), cmd.status(), cmd.now(), cmd.holdTtl(),
                cmd.longestSession(), true);
    }

    protected StoreOutcome<HoldResult> hold(Slot slot, StudentId student, Instant at) {
        return store().hold(slot.tenantId(),
                command(slot, student, RequestId.random(), BookingStatus.HELD, at, false));
    }

    /** The new booking of a hold that must have been granted. */
    protected static Booking granted(StoreOutcome<HoldResult> outcome) {
        assertThat(outcome.result()).isInstanceOf(Held.class);
        Held held = (Held) outcome.result();
        assertThat(held.replayed()).as("a new booking, not a replay").isFalse();
        return held.booking();
    }

    protected Booking held(Slot slot, StudentId student) {
        return granted(hold(slot, student, now));
    }

    /** A hold taken at {@link #now} by a new student that runs out at {@code deadline}. */
    protected Booking heldUntil(Slot slot, Instant deadline) {
        return granted(store().hold(tenant, new HoldCommand(BookingId.random(),
                HoldRequest.of(RequestId.random(), slot.slotId(), Fixtures.student()), BookingStatus.HELD, now,
                Duration.between(now, deadline), LONGEST, false)));
    }

    protected StoreOutcome<ConfirmResult> confirm(Booking b, Instant at) {
        return store().confirm(b.tenantId(), b.bookingId(), b.studentId(), at, TERMS);
    }

    protected StoreOutcome<CancelResult> cancel(Booking b, Instant at) {
        return store().cancel(b.tenantId(), b.bookingId(), b.studentId(), at, TERMS);
    }

    protected Booking find(BookingId id) {
        return store().findBooking(tenant, id).orElseThrow(() -> new AssertionError("no booking " + id));
    }

    protected Availability availability(Slot slot, Instant at) {
        return store().availability(slot.tenantId(), slot.slotId(), at)
                .orElseThrow(() -> new AssertionError("no slot " + slot.slotId()));
    }

    protected List<Booking> live(Slot slot, Instant at) {
        return store().liveSlot(slot.tenantId(), slot.slotId(), at).map(LiveSlot::live)
                .orElseThrow(() -> new AssertionError("no slot " + slot.slotId()));
    }

    protected List<Slot> allSlots(TenantId tenantId) {
        List<Slot> all = new ArrayList<>();
        SlotId after = null;
        while (true) {
            List<Slot> page = store().slots(tenantId, after, 50);
            if (page.isEmpty()) {
                return all;
            }
            all.addAll(page);
            after = page.get(page.size() - 1).slotId();
        }
    }

    protected static List<ResourceConflict> clashes(Object result) {
        assertThat(result).isInstanceOf(Conflict.class);
        return ((Conflict) result).conflicts();
    }
}
