package org.slotbook.core.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CoachId;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceConflict;
import org.slotbook.core.ResourceKind;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.RoomId;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.spi.ConflictDetector;
import org.slotbook.core.spi.DuplicateBookingException;
import org.slotbook.core.spi.NewBooking;
import org.slotbook.core.spi.Occupation;
import org.slotbook.core.spi.SeatLedger;
import org.slotbook.core.spi.StoreTransaction;

/**
 * What every {@link ConflictDetector} must do, inside transactions of the ledger of the same store.
 *
 * <p>Occupations refer to slots and bookings that the tests first store through the ledger, so a
 * backend may keep foreign keys between them. {@code occupy} must name every clash, not only the
 * first. Results of concurrent runs are read back through the detector itself: occupying a probe
 * range in a transaction that is rolled back returns what is stored there.
 */
public abstract class ConflictDetectorContract {
    /** The longest session these tests store; every occupy passes it. */
    protected static final Duration LONGEST = Duration.ofHours(4);

    // Fresh for every test, also when a subclass shares one instance across tests (PER_CLASS).
    protected TenantId tenant;
    protected Instant now;
    /** Minute 0 of the tests' timeline: a whole hour a day from now. */
    protected Instant base;

    @BeforeEach
    void freshTenant() {
        tenant = Fixtures.tenant();
        now = new MutableClock().instant();
        base = Fixtures.nextHour(now).plus(Duration.ofDays(1));
    }

    protected abstract SeatLedger ledger();

    protected abstract ConflictDetector detector();

    /**
     * Runs {@code work} in a transaction of <em>another</em> store of the same backend, so that the
     * suite can check that this store refuses it; empty when the backend cannot make one here (the
     * test is then skipped).
     */
    protected <T> Optional<T> inForeignTransaction(TenantId tenantId, Function<StoreTransaction, T> work) {
        return Optional.empty();
    }

    // ---------------------------------------------------------------- basics

    @Test
    void occupyingFreeResourcesWritesThem() {
        Slot slot = slot(range(60, 120));

        assertThat(occupy(slotOccupation(slot))).isEmpty();

        Slot sameCoach = slot(range(60, 120), slot.coachId(), Fixtures.room());
        assertThat(probe(slotOccupation(sameCoach))).containsExactly(
                new ResourceConflict(ResourceRef.of(slot.coachId()), slot.slotId(), Optional.empty(), slot.time()));
        Slot sameRoom = slot(range(90, 100), Fixtures.coach(), slot.roomId());
        assertThat(probe(slotOccupation(sameRoom))).containsExactly(
                new ResourceConflict(ResourceRef.of(slot.roomId()), slot.slotId(), Optional.empty(), slot.time()));
        Slot both = slot(range(119, 200), slot.coachId(), slot.roomId());
        assertThat(probe(slotOccupation(both))).extracting(ResourceConflict::kind)
                .containsExactlyInAnyOrder(ResourceKind.COACH, ResourceKind.ROOM);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(ResourceKind.class)
    void anOverlapIsAConflictThatNamesTheExistingOccupationAndWritesNothing(ResourceKind kind) {
        ResourceRef busy = resource(kind);
        Slot existing = slot(range(60, 120));
        Optional<BookingId> existingBooking = kind == ResourceKind.STUDENT
                ? Optional.of(book(existing, StudentId.of(busy.id())))
                : Optional.empty();
        assertThat(occupy(occupation(busy, existing, existingBooking.orElse(null)))).isEmpty();

        int[][] shapes = {{60, 120}, {30, 90}, {90, 150}, {70, 80}, {0, 180}, {119, 121}, {59, 61}};
        for (int[] shape : shapes) {
            Slot newcomer = slot(range(shape[0], shape[1]));
            BookingId newBooking = kind == ResourceKind.STUDENT ? book(newcomer, StudentId.of(busy.id())) : null;
            Occupation wanted = kind == ResourceKind.STUDENT
                    ? occupation(busy, newcomer, newBooking)
                    : new Occupation(List.of(busy, otherKindThan(kind)), newcomer.time(), newcomer.slotId(), null);

            List<ResourceConflict> conflicts = occupy(wanted);

            assertThat(conflicts).as("shape %s", newcomer.time()).containsExactly(
                    new ResourceConflict(busy, existing.slotId(), existingBooking, existing.time()));
            assertThat(rolledBack((StoreTransaction t) -> detector().releaseSlot(t, newcomer.slotId())))
                    .as("nothing written for %s", newcomer.time()).isZero();
            if (kind != ResourceKind.STUDENT) {
                assertThat(probe(new Occupation(List.of(wanted.resources().get(1)), newcomer.time(),
                        newcomer.slotId(), null))).as("the free resource was not written either").isEmpty();
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(ResourceKind.class)
    void backToBackIsNoConflict(ResourceKind kind) {
        ResourceRef r = resource(kind);
        Slot middle = slot(range(60, 120));
        Slot after = slot(range(120, 180));
        Slot before = slot(range(0, 60));

        for (Slot s : List.of(middle, after, before)) {
            BookingId b = kind == ResourceKind.STUDENT ? book(s, StudentId.of(r.id())) : null;
            assertThat(occupy(occupation(r, s, b))).as("%s at %s", r, s.time()).isEmpty();
        }

        Slot across = slot(range(119, 121));
        assertThat(probe(occupation(r, across, null))).extracting(ResourceConflict::slotId)
                .containsExactlyInAnyOrder(middle.slotId(), after.slotId());
    }

    @Test
    void differentResourcesNeverConflict() {
        String sameId = "x-" + Fixtures.shortRandom();
        Slot s1 = slot(range(60, 120), CoachId.of(sameId), RoomId.of(sameId));
        Slot s2 = slot(range(60, 120));
        Slot s3 = slot(range(60, 120));
        BookingId b = book(s2, StudentId.of(sameId));

        assertThat(occupy(new Occupation(List.of(ResourceRef.of(CoachId.of(sameId))), s1.time(), s1.slotId(),
                null))).isEmpty();
        assertThat(occupy(new Occupation(List.of(ResourceRef.of(RoomId.of(sameId))), s1.time(), s1.slotId(),
                null))).as("a room with a coach's id").isEmpty();
        assertThat(occupy(occupation(ResourceRef.of(StudentId.of(sameId)), s2, b))).as("a student with that id")
                .isEmpty();
        assertThat(occupy(slotOccupation(s3))).as("other coach and room at the same time").isEmpty();
    }

    @Test
    void occupationsOfOneTransactionSeeEachOther() {
        Slot a = slot(range(60, 120));
        Slot b = slot(range(90, 150), a.coachId(), Fixtures.room());

        List<ResourceConflict> second = tx(t -> {
            detector().lock(t, List.of(ResourceRef.of(a.coachId()), ResourceRef.of(a.roomId())));
            detector().lock(t, List.of(ResourceRef.of(a.coachId())));
            assertThat(detector().occupy(t, slotOccupation(a), LONGEST)).isEmpty();
            return detector().occupy(t, slotOccupation(b), LONGEST);
        });

        assertThat(second).extracting(ResourceConflict::slotId).containsExactly(a.slotId());
        assertThat(probe(slotOccupation(b))).extracting(ResourceConflict::slotId).containsExactly(a.slotId());
    }

    @Test
    void aRolledBackOccupationIsNotStored() {
        Slot a = slot(range(60, 120));

        assertThatThrownBy(() -> tx(t -> {
            assertThat(detector().occupy(t, slotOccupation(a), LONGEST)).isEmpty();
            throw new IllegalStateException("boom");
        })).hasMessage("boom");
        assertThat(probe(slotOccupation(a))).isEmpty();

        tx(t -> {
            assertThat(detector().occupy(t, slotOccupation(a), LONGEST)).isEmpty();
            t.setRollbackOnly();
            return null;
        });
        assertThat(probe(slotOccupation(a))).isEmpty();
    }

    // ---------------------------------------------------------------- release

    @Test
    void aReleasedBookingFreesTheStudent() {
        StudentId student = Fixtures.student();
        Slot a = slot(range(60, 120));
        Slot b = slot(range(60, 120));
        BookingId booking = book(a, student);
        assertThat(occupy(occupation(ResourceRef.of(student), a, booking))).isEmpty();
        BookingId second = book(b, student);
        assertThat(occupy(occupation(ResourceRef.of(student), b, second))).hasSize(1);

        assertThat(tx((StoreTransaction t) -> detector().releaseBooking(t, booking))).isEqualTo(1);
        assertThat(tx((StoreTransaction t) -> detector().releaseBooking(t, booking))).as("already released").isZero();
        assertThat(tx((StoreTransaction t) -> detector().releaseBooking(t, BookingId.random()))).as("unknown").isZero();

        assertThat(occupy(occupation(ResourceRef.of(student), b, second))).isEmpty();
    }

    @Test
    void aReleasedSlotFreesItsCoachRoomAndStudents() {
        Slot slot = slot(range(60, 120));
        StudentId s1 = Fixtures.student();
        StudentId s2 = Fixtures.student();
        assertThat(occupy(slotOccupation(slot))).isEmpty();
        assertThat(occupy(occupation(ResourceRef.of(s1), slot, book(slot, s1)))).isEmpty();
        assertThat(occupy(occupation(ResourceRef.of(s2), slot, book(slot, s2)))).isEmpty();
        Slot bystander = slot(range(60, 120));
        assertThat(occupy(slotOccupation(bystander))).isEmpty();

        assertThat(tx((StoreTransaction t) -> detector().releaseSlot(t, slot.slotId()))).isEqualTo(4);
        assertThat(tx((StoreTransaction t) -> detector().releaseSlot(t, slot.slotId()))).isZero();

        Slot again = slot(range(90, 150), slot.coachId(), slot.roomId());
        assertThat(occupy(slotOccupation(again))).isEmpty();
        assertThat(occupy(occupation(ResourceRef.of(s1), again, book(again, s1)))).isEmpty();
        assertThat(occupy(occupation(ResourceRef.of(s2), again, book(again, s2)))).isEmpty();
        assertThat(probe(slotOccupation(slot(range(60, 120), bystander.coachId(), Fixtures.room()))))
                .extracting(ResourceConflict::slotId).containsExactly(bystander.slotId());
    }

    // ---------------------------------------------------------------- bound, foreign transactions

    @Test
    void anOccupationThatStartedUpToTheLongestSessionBeforeStillConflicts() {
        Slot longest = slot(TimeRange.of(base, LONGEST));
        assertThat(occupy(slotOccupation(longest))).isEmpty();
        Instant end = base.plus(LONGEST);

        Slot lastMicro = slot(TimeRange.of(end.minusNanos(1_000), Duration.ofHours(1)), longest.coachId(),
                Fixtures.room());
        assertThat(occupy(slotOccupation(lastMicro))).extracting(ResourceConflict::slotId)
                .containsExactly(longest.slotId());
        Slot next = slot(TimeRange.of(end, Duration.ofHours(1)), longest.coachId(), Fixtures.room());
        assertThat(occupy(slotOccupation(next))).isEmpty();
    }

    @Test
    void aTransactionTheStoreDidNotOpenIsRefused() {
        StoreTransaction fake = new StoreTransaction() {
            @Override
            public TenantId tenantId() {
                return tenant;
            }

            @Override
            public void setRollbackOnly() {
            }

            @Override
            public boolean isRollbackOnly() {
                return false;
            }
        };
        Occupation occupation = new Occupation(List.of(ResourceRef.of(Fixtures.coach())), range(0, 60),
                Fixtures.slot(), null);

        assertThatThrownBy(() -> detector().occupy(fake, occupation, LONGEST))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> detector().lock(fake, occupation.resources()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> detector().releaseBooking(fake, BookingId.random()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> detector().releaseSlot(fake, occupation.slotId()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aTransactionOfAnotherStoreIsRefused() {
        Slot slot = slot(range(0, 60));
        Optional<Class<?>> thrown = inForeignTransaction(tenant, t -> {
            try {
                detector().occupy(t, slotOccupation(slot), LONGEST);
                return Void.class;
            } catch (RuntimeException e) {
                return e.getClass();
            }
        });
        assumeTrue(thrown.isPresent(), "the backend made no transaction of another store");
        assertThat(thrown.get()).isEqualTo(org.slotbook.core.InvalidInputException.class);
        assertThat(occupy(slotOccupation(slot))).as("nothing was written").isEmpty();
    }

    // ---------------------------------------------------------------- concurrency

    @Test
    void aStudentRacingIntoTwoOverlappingSlotsGetsAtMostOne() {
        for (int round = 0; round < 3; round++) {
            StudentId student = Fixtures.student();
            Slot a = slot(range(60, 120));
            Slot b = slot(range(90, 150));

            List<Boolean> won = Concurrent.run(16, i -> {
                Slot target = i % 2 == 0 ? a : b;
                try {
                    return tx(t -> {
                        detector().lock(t, List.of(ResourceRef.of(student)));
                        NewBooking nb = new NewBooking(BookingId.random(), RequestId.random(), target.slotId(),
                                student, BookingStatus.HELD, now.plus(Duration.ofMinutes(10)));
                        BookingId id = ledger().claimSeat(t, nb, now).orElseThrow().booking().bookingId();
                        if (detector().occupy(t, occupation(ResourceRef.of(student), target, id), LONGEST)
                                .isEmpty()) {
                            return true;
                        }
                        t.setRollbackOnly();
                        return false;
                    });
                } catch (DuplicateBookingException e) {
                    return false;
                }
            });

            assertThat(won).filteredOn(Boolean::booleanValue).hasSize(1);
            Slot union = slot(range(60, 150));
            assertThat(probe(occupation(ResourceRef.of(student), union, null))).as("read back").hasSize(1);
        }
    }

    @Test
    void randomOccupationsFromManyThreadsNeverOverlap() {
        Random random = Fixtures.random("randomOccupationsFromManyThreadsNeverOverlap");
        List<ResourceRef> resources = List.of(ResourceRef.of(Fixtures.coach()), ResourceRef.of(Fixtures.coach()),
                ResourceRef.of(Fixtures.room()));
        int threads = 8;
        int attempts = 25;
        long[] seeds = new long[threads];
        for (int i = 0; i < threads; i++) {
            seeds[i] = random.nextLong();
        }
        ConcurrentLinkedQueue<Occupation> written = new ConcurrentLinkedQueue<>();

        Concurrent.runAll(threads, i -> {
            Random mine = new Random(seeds[i]);
            for (int k = 0; k < attempts; k++) {
                List<ResourceRef> wanted = new ArrayList<>(resources);
                java.util.Collections.shuffle(wanted, mine);
                wanted = wanted.subList(0, 1 + mine.nextInt(2));
                int start = 15 * mine.nextInt(80);
                int length = 15 * (2 + mine.nextInt(15));
                Slot slot = newSlot(range(start, start + length), Fixtures.coach(), Fixtures.room());
                Occupation occupation = new Occupation(wanted, slot.time(), slot.slotId(), null);
                boolean stored = tx(t -> {
                    detector().lock(t, occupation.resources());
                    assertThat(ledger().insertSlot(t, slot)).isTrue();
                    if (detector().occupy(t, occupation, LONGEST).isEmpty()) {
                        return true;
                    }
                    t.setRollbackOnly();
                    return false;
                });
                if (stored) {
                    written.add(occupation);
                }
            }
        });

        assertThat(written).isNotEmpty();
        Slot everything = newSlot(range(-60, 25 * 60), Fixtures.coach(), Fixtures.room());
        for (ResourceRef r : resources) {
            List<ResourceConflict> stored = rolledBack(t -> {
                assertThat(ledger().insertSlot(t, everything)).isTrue();
                return detector().occupy(t, new Occupation(List.of(r), everything.time(), everything.slotId(), null),
                        Duration.ofHours(30));
            });
            Map<SlotId, TimeRange> expected = written.stream().filter(o -> o.resources().contains(r))
                    .collect(Collectors.toMap(Occupation::slotId, Occupation::time));
            assertThat(stored).allSatisfy(c -> assertThat(c.resource()).isEqualTo(r));
            assertThat(stored.stream().collect(Collectors.toMap(ResourceConflict::slotId, ResourceConflict::time)))
                    .as("what is stored for %s", r).isEqualTo(expected);
            List<TimeRange> sorted = stored.stream().map(ResourceConflict::time)
                    .sorted(Comparator.comparing(TimeRange::start)).toList();
            for (int i = 1; i < sorted.size(); i++) {
                assertThat(sorted.get(i - 1).overlaps(sorted.get(i)))
                        .as("%s overlaps %s on %s", sorted.get(i - 1), sorted.get(i), r).isFalse();
            }
        }
    }

    // ---------------------------------------------------------------- helpers

    protected <T> T tx(Function<StoreTransaction, T> work) {
        return ledger().inTransaction(tenant, work);
    }

    /** Runs {@code work} in a transaction that is always rolled back. */
    protected <T> T rolledBack(Function<StoreTransaction, T> work) {
        return tx(t -> {
            try {
                return work.apply(t);
            } finally {
                t.setRollbackOnly();
            }
        });
    }

    /** Occupies in a transaction of its own, which commits whatever the answer. */
    protected List<ResourceConflict> occupy(Occupation occupation) {
        return tx(t -> {
            detector().lock(t, occupation.resources());
            return detector().occupy(t, occupation, LONGEST);
        });
    }

    /** What occupying would clash with, written nowhere. */
    protected List<ResourceConflict> probe(Occupation occupation) {
        return rolledBack(t -> detector().occupy(t, occupation, LONGEST));
    }

    protected TimeRange range(int fromMinute, int toMinute) {
        return TimeRange.of(base.plus(Duration.ofMinutes(fromMinute)), base.plus(Duration.ofMinutes(toMinute)));
    }

    protected Slot newSlot(TimeRange time, CoachId coach, RoomId room) {
        return new Slot(tenant, Fixtures.slot(), coach, room, time, 50, SlotStatus.OPEN);
    }

    /** A stored slot over {@code time} with its own coach and room (not occupied yet). */
    protected Slot slot(TimeRange time) {
        return slot(time, Fixtures.coach(), Fixtures.room());
    }

    protected Slot slot(TimeRange time, CoachId coach, RoomId room) {
        Slot slot = newSlot(time, coach, room);
        assertThat(tx((StoreTransaction t) -> ledger().insertSlot(t, slot))).isTrue();
        return slot;
    }

    /** A stored booking of the student in the slot. */
    protected BookingId book(Slot slot, StudentId student) {
        NewBooking nb = new NewBooking(BookingId.random(), RequestId.random(), slot.slotId(), student,
                BookingStatus.CONFIRMED, now.plus(Duration.ofMinutes(10)));
        return tx(t -> ledger().claimSeat(t, nb, now)).orElseThrow().booking().bookingId();
    }

    protected static Occupation slotOccupation(Slot slot) {
        return new Occupation(List.of(ResourceRef.of(slot.coachId()), ResourceRef.of(slot.roomId())), slot.time(),
                slot.slotId(), null);
    }

    protected static Occupation occupation(ResourceRef resource, Slot slot, BookingId booking) {
        return new Occupation(List.of(resource), slot.time(), slot.slotId(), booking);
    }

    private static ResourceRef resource(ResourceKind kind) {
        return new ResourceRef(kind, kind.name().toLowerCase(java.util.Locale.ROOT) + "-" + Fixtures.shortRandom());
    }

    private static ResourceRef otherKindThan(ResourceKind kind) {
        return kind == ResourceKind.COACH ? ResourceRef.of(Fixtures.room()) : ResourceRef.of(Fixtures.coach());
    }
}
