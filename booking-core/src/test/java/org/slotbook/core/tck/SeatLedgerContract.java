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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CoachId;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotStatus;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.spi.DuplicateBookingException;
import org.slotbook.core.spi.NewBooking;
import org.slotbook.core.spi.SeatClaim;
import org.slotbook.core.spi.SeatCount;
import org.slotbook.core.spi.SeatLedger;
import org.slotbook.core.spi.StoreTransaction;

/**
 * What every {@link SeatLedger} must do. A backend subclasses it once and returns its ledger; each
 * test uses a fresh tenant, so the backend may be shared by all tests of the class and reused
 * across runs on the same server.
 *
 * <p>Concurrent tests read their invariants back from the ledger, not from the calls' return values.
 */
public abstract class SeatLedgerContract {
    /** The confirm window of the holds these tests take. */
    protected static final Duration TTL = Duration.ofMinutes(10);

    // Fresh for every test, also when a subclass shares one instance across tests (PER_CLASS).
    protected TenantId tenant;
    protected MutableClock clock;
    /** The tests' "now": the real current time when the test started, at millisecond precision. */
    protected Instant now;

    @BeforeEach
    void freshTenant() {
        tenant = Fixtures.tenant();
        clock = new MutableClock();
        now = clock.instant();
    }

    /** The ledger under test (may be the same instance on every call). */
    protected abstract SeatLedger ledger();

    // ---------------------------------------------------------------- slots and seats

    @Test
    void insertSlotStoresAnOpenSlotWithCapacityFreeSeats() {
        Slot slot = slot(3);

        assertThat(tx((StoreTransaction t) -> ledger().findSlot(t, slot.slotId()))).contains(slot);
        assertThat(count(slot, now)).isEqualTo(new SeatCount(0, 0));
        List<Integer> seats = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            seats.add(claimed(hold(slot, Fixtures.student())).seat());
        }
        assertThat(seats).containsExactlyInAnyOrder(1, 2, 3);
        assertThat(claim(hold(slot, Fixtures.student()), now)).isEmpty();
        assertThat(count(slot, now)).isEqualTo(new SeatCount(3, 0));
    }

    @Test
    void insertingASlotIdTwiceReturnsFalseAndChangesNothing() {
        Slot slot = slot(2);
        Slot other = new Slot(tenant, slot.slotId(), Fixtures.coach(), Fixtures.room(),
                TimeRange.of(slot.time().start().plus(Duration.ofDays(1)), Duration.ofHours(2)), 5, SlotStatus.OPEN);

        assertThat(tx((StoreTransaction t) -> ledger().insertSlot(t, other))).isFalse();

        assertThat(tx((StoreTransaction t) -> ledger().findSlot(t, slot.slotId()))).contains(slot);
        claimed(hold(slot, Fixtures.student()));
        claimed(hold(slot, Fixtures.student()));
        assertThat(claim(hold(slot, Fixtures.student()), now)).as("still 2 seats").isEmpty();
    }

    @Test
    void unknownIdsAreEmpty() {
        SlotId slotId = Fixtures.slot();
        assertThat(tx((StoreTransaction t) -> ledger().findSlot(t, slotId))).isEmpty();
        assertThat(tx((StoreTransaction t) -> ledger().findBooking(t, BookingId.random()))).isEmpty();
        assertThat(tx((StoreTransaction t) -> ledger().findByRequest(t, RequestId.random()))).isEmpty();
        assertThat(tx((StoreTransaction t) -> ledger().findActive(t, slotId, Fixtures.student()))).isEmpty();
        assertThat(count(slotId, now)).isEqualTo(new SeatCount(0, 0));
        assertThat(tx((StoreTransaction t) -> ledger().liveBookings(t, slotId, now))).isEmpty();
        assertThat(tx((StoreTransaction t) -> ledger().cancelSlot(t, slotId, now))).isEmpty();
        assertThat(tx((StoreTransaction t) -> ledger().cancel(t, BookingId.random(), now))).isFalse();
        assertThat(tx((StoreTransaction t) -> ledger().confirm(t, BookingId.random(), now))).isFalse();
        assertThat(tx((StoreTransaction t) -> ledger().expire(t, BookingId.random(), now))).isFalse();
    }

    @Test
    void claimSeatWritesTheBookingAsGiven() {
        Slot slot = slot(2);
        NewBooking nb = hold(slot, Fixtures.student());

        SeatClaim claim = claim(nb, now).orElseThrow();

        Booking b = claim.booking();
        assertThat(claim.displaced()).isEmpty();
        assertThat(b.tenantId()).isEqualTo(tenant);
        assertThat(b.bookingId()).isEqualTo(nb.bookingId());
        assertThat(b.requestId()).isEqualTo(nb.requestId());
        assertThat(b.slotId()).isEqualTo(slot.slotId());
        assertThat(b.studentId()).isEqualTo(nb.studentId());
        assertThat(b.status()).isEqualTo(BookingStatus.HELD);
        assertThat(b.heldUntil()).isEqualTo(nb.heldUntil());
        assertThat(b.createdAt()).isEqualTo(now);
        assertThat(b.seat()).isBetween(1, 2);
        assertThat(tx((StoreTransaction t) -> ledger().findBooking(t, nb.bookingId()))).contains(b);
        assertThat(tx((StoreTransaction t) -> ledger().findByRequest(t, nb.requestId()))).contains(b);
        assertThat(tx((StoreTransaction t) -> ledger().findActive(t, slot.slotId(), nb.studentId()))).contains(b);
        assertThat(tx((StoreTransaction t) -> ledger().liveBookings(t, slot.slotId(), now))).containsExactly(b);

        NewBooking direct = new NewBooking(BookingId.random(), RequestId.random(), slot.slotId(), Fixtures.student(),
                BookingStatus.CONFIRMED, now.plus(TTL));
        assertThat(claimed(direct).status()).isEqualTo(BookingStatus.CONFIRMED);
        assertThat(count(slot, now)).isEqualTo(new SeatCount(1, 1));
    }

    @ParameterizedTest(name = "capacity {0}")
    @ValueSource(ints = {1, 10})
    void racingClaimsNeverOversell(int capacity) {
        Slot slot = slot(capacity);
        int threads = 50;
        int studentsPerThread = 6;
        Set<BookingId> won = ConcurrentHashMap.newKeySet();

        Concurrent.runAll(threads, i -> {
            for (int k = 0; k < studentsPerThread; k++) {
                NewBooking nb = hold(slot, StudentId.of("s-" + i + "-" + k));
                claim(nb, now).ifPresent(c -> won.add(c.booking().bookingId()));
            }
        });

        List<Booking> live = tx(t -> ledger().liveBookings(t, slot.slotId(), now));
        assertThat(count(slot, now).taken()).isEqualTo(capacity);
        assertThat(live).hasSize(capacity);
        assertThat(live).extracting(Booking::seat).doesNotHaveDuplicates()
                .allSatisfy(seat -> assertThat(seat).isBetween(1, capacity));
        assertThat(live).extracting(Booking::studentId).doesNotHaveDuplicates();
        assertThat(live).extracting(Booking::bookingId).containsExactlyInAnyOrderElementsOf(won);
    }

    @Test
    void anExpiredHoldIsTakenOver() {
        Slot slot = slot(1);
        Instant deadline = now.plus(Duration.ofMinutes(1));
        Booking first = claimed(new NewBooking(BookingId.random(), RequestId.random(), slot.slotId(),
                Fixtures.student(), BookingStatus.HELD, deadline));

        assertThat(claim(hold(slot, Fixtures.student()), deadline.minusMillis(1))).as("hold still live").isEmpty();
        assertThat(count(slot, deadline).taken()).as("live while now < heldUntil").isZero();

        NewBooking second = hold(slot, Fixtures.student());
        SeatClaim claim = claim(second, deadline).orElseThrow();

        assertThat(claim.displaced()).contains(first.bookingId());
        assertThat(claim.booking().seat()).isEqualTo(first.seat());
        assertThat(find(first.bookingId()).status()).isEqualTo(BookingStatus.EXPIRED);
        assertThat(tx((StoreTransaction t) -> ledger().findActive(t, slot.slotId(), first.studentId()))).isEmpty();
        assertThat(tx((StoreTransaction t) -> ledger().liveBookings(t, slot.slotId(), deadline)))
                .extracting(Booking::bookingId).containsExactly(second.bookingId());
        assertThat(tx((StoreTransaction t) -> ledger().expire(t, first.bookingId(), deadline))).as("already expired").isFalse();
    }

    @Test
    void findActiveIncludesAHoldThatRanOutButWasNotExpired() {
        Slot slot = slot(2);
        Booking b = claimed(hold(slot, Fixtures.student()));
        Instant later = b.heldUntil().plusSeconds(1);

        assertThat(tx((StoreTransaction t) -> ledger().findActive(t, slot.slotId(), b.studentId()))).contains(b);
        assertThat(count(slot, later)).isEqualTo(new SeatCount(0, 0));
        assertThat(tx((StoreTransaction t) -> ledger().liveBookings(t, slot.slotId(), later))).isEmpty();
    }

    // ---------------------------------------------------------------- duplicates

    @Test
    void aUsedRequestIdIsRefusedAndTheTransactionLeavesNothingBehind() {
        Slot slot = slot(3);
        Slot another = slot(3);
        Booking first = claimed(hold(slot, Fixtures.student()));
        NewBooking bystander = hold(slot, Fixtures.student());
        NewBooking sameRequest = new NewBooking(BookingId.random(), first.requestId(), another.slotId(),
                Fixtures.student(), BookingStatus.HELD, now.plus(TTL));
        Slot unborn = newSlot(Fixtures.slot(), 1);

        assertThatThrownBy(() -> tx(t -> {
            assertThat(ledger().insertSlot(t, unborn)).isTrue();
            assertThat(ledger().claimSeat(t, bystander, now)).isPresent();
            return ledger().claimSeat(t, sameRequest, now);
        })).isInstanceOf(DuplicateBookingException.class);

        assertThat(tx((StoreTransaction t) -> ledger().findByRequest(t, first.requestId()))).contains(first);
        assertThat(tx((StoreTransaction t) -> ledger().findBooking(t, bystander.bookingId()))).isEmpty();
        assertThat(tx((StoreTransaction t) -> ledger().findBooking(t, sameRequest.bookingId()))).isEmpty();
        assertThat(tx((StoreTransaction t) -> ledger().findSlot(t, unborn.slotId()))).isEmpty();
        assertThat(count(slot, now).taken()).isEqualTo(1);
        assertThat(count(another, now).taken()).isZero();
        for (int i = 0; i < 3; i++) {
            claimed(hold(another, Fixtures.student()));
        }
        assertThat(claim(hold(another, Fixtures.student()), now)).as("all 3 seats were still free").isEmpty();
    }

    @Test
    void aSecondBookingOfTheSameStudentInASlotIsRefused() {
        Slot slot = slot(3);
        StudentId student = Fixtures.student();
        Booking first = claimed(hold(slot, student));

        NewBooking bystander = hold(slot, Fixtures.student());
        assertThatThrownBy(() -> tx(t -> {
            assertThat(ledger().claimSeat(t, bystander, now)).isPresent();
            return ledger().claimSeat(t, hold(slot, student), now);
        })).isInstanceOf(DuplicateBookingException.class);
        assertThat(tx((StoreTransaction t) -> ledger().findBooking(t, bystander.bookingId()))).isEmpty();
        assertThat(count(slot, now).taken()).as("the bystander's seat was given back").isEqualTo(1);
        assertThat(tx((StoreTransaction t) -> ledger().confirm(t, first.bookingId(), now))).isTrue();
        assertThatThrownBy(() -> claim(hold(slot, student), now)).isInstanceOf(DuplicateBookingException.class);

        assertThat(count(slot, now)).isEqualTo(new SeatCount(0, 1));
        assertThat(tx((StoreTransaction t) -> ledger().liveBookings(t, slot.slotId(), now))).extracting(Booking::bookingId)
                .containsExactly(first.bookingId());

        assertThat(tx((StoreTransaction t) -> ledger().cancel(t, first.bookingId(), now))).isTrue();
        Booking again = claimed(hold(slot, student));
        assertThat(tx((StoreTransaction t) -> ledger().findActive(t, slot.slotId(), student))).contains(again);
        assertThat(claimed(hold(slot(1), student)).studentId()).as("another slot is fine").isEqualTo(student);
    }

    // ---------------------------------------------------------------- confirm, cancel, expire

    @Test
    void confirmOnlyALiveHold() {
        Slot slot = slot(3);
        Booking b = claimed(hold(slot, Fixtures.student()));
        Instant deadline = b.heldUntil();

        assertThat(tx((StoreTransaction t) -> ledger().confirm(t, b.bookingId(), deadline))).as("now == heldUntil: ran out").isFalse();
        assertThat(find(b.bookingId()).status()).isEqualTo(BookingStatus.HELD);

        Instant justBefore = deadline.minus(1, ChronoUnit.MICROS);
        assertThat(tx((StoreTransaction t) -> ledger().confirm(t, b.bookingId(), justBefore))).isTrue();
        assertThat(tx((StoreTransaction t) -> ledger().confirm(t, b.bookingId(), justBefore))).as("only once").isFalse();
        Booking confirmed = find(b.bookingId());
        assertThat(confirmed.status()).isEqualTo(BookingStatus.CONFIRMED);
        assertThat(confirmed.seat()).isEqualTo(b.seat());
        assertThat(count(slot, deadline.plus(Duration.ofDays(1)))).as("confirmed never runs out")
                .isEqualTo(new SeatCount(0, 1));
        assertThat(tx((StoreTransaction t) -> ledger().expire(t, b.bookingId(), deadline.plusSeconds(1)))).isFalse();

        Booking late = claimed(hold(slot, Fixtures.student()));
        assertThat(tx((StoreTransaction t) -> ledger().confirm(t, late.bookingId(), late.heldUntil().plusSeconds(1)))).isFalse();
        Booking cancelled = claimed(hold(slot, Fixtures.student()));
        assertThat(tx((StoreTransaction t) -> ledger().cancel(t, cancelled.bookingId(), now))).isTrue();
        assertThat(tx((StoreTransaction t) -> ledger().confirm(t, cancelled.bookingId(), now))).isFalse();
        assertThat(find(cancelled.bookingId()).status()).isEqualTo(BookingStatus.CANCELLED);
    }

    @Test
    void hasFreeSeatFollowsClaimsExpiryAndCancels() {
        Slot slot = slot(2);
        assertThat(tx((StoreTransaction t) -> ledger().hasFreeSeat(t, slot.slotId(), now))).isTrue();
        Booking first = claimed(hold(slot, Fixtures.student()));
        claimed(new NewBooking(BookingId.random(), RequestId.random(), slot.slotId(), Fixtures.student(),
                BookingStatus.CONFIRMED, now.plus(TTL)));
        assertThat(tx((StoreTransaction t) -> ledger().hasFreeSeat(t, slot.slotId(), now))).isFalse();
        assertThat(tx((StoreTransaction t) -> ledger().hasFreeSeat(t, slot.slotId(), first.heldUntil())))
                .as("a hold that ran out frees its seat for a claim").isTrue();
        assertThat(tx((StoreTransaction t) -> ledger().cancel(t, first.bookingId(), now))).isTrue();
        assertThat(tx((StoreTransaction t) -> ledger().hasFreeSeat(t, slot.slotId(), now))).isTrue();
        assertThat(tx((StoreTransaction t) -> ledger().hasFreeSeat(t, Fixtures.slot(), now)))
                .as("an unknown slot").isFalse();
    }

    @Test
    void cancelIsTrueOnceAndFreesTheSeat() {
        Slot slot = slot(1);
        Booking held = claimed(hold(slot, Fixtures.student()));

        assertThat(tx((StoreTransaction t) -> ledger().cancel(t, held.bookingId(), now))).isTrue();
        assertThat(tx((StoreTransaction t) -> ledger().cancel(t, held.bookingId(), now))).isFalse();
        assertThat(find(held.bookingId()).status()).isEqualTo(BookingStatus.CANCELLED);
        assertThat(tx((StoreTransaction t) -> ledger().findActive(t, slot.slotId(), held.studentId()))).isEmpty();
        assertThat(count(slot, now).taken()).isZero();

        Booking confirmed = claimed(hold(slot, Fixtures.student()));
        assertThat(confirmed.seat()).isEqualTo(held.seat());
        assertThat(tx((StoreTransaction t) -> ledger().confirm(t, confirmed.bookingId(), now))).isTrue();
        assertThat(tx((StoreTransaction t) -> ledger().cancel(t, confirmed.bookingId(), now))).isTrue();
        assertThat(tx((StoreTransaction t) -> ledger().cancel(t, confirmed.bookingId(), now))).isFalse();
        assertThat(claim(hold(slot, Fixtures.student()), now)).isPresent();
    }

    @Test
    void concurrentCancelsOfOneBookingGiveOneSeatBack() {
        Slot slot = slot(2);
        Booking stays = claimed(hold(slot, Fixtures.student()));
        Booking goes = claimed(hold(slot, Fixtures.student()));

        List<Boolean> results = Concurrent.run(10, i -> tx(t -> ledger().cancel(t, goes.bookingId(), now)));

        assertThat(results).filteredOn(Boolean::booleanValue).hasSize(1);
        assertThat(tx((StoreTransaction t) -> ledger().liveBookings(t, slot.slotId(), now))).extracting(Booking::bookingId)
                .containsExactly(stays.bookingId());
        List<Boolean> refill = Concurrent.run(5, i -> claim(hold(slot, Fixtures.student()), now).isPresent());
        assertThat(refill).filteredOn(Boolean::booleanValue).as("exactly one seat came back").hasSize(1);
        assertThat(count(slot, now).taken()).isEqualTo(2);
    }

    @Test
    void expireOnlyAHoldThatRanOut() {
        Slot slot = slot(1);
        Booking b = claimed(hold(slot, Fixtures.student()));
        Instant deadline = b.heldUntil();

        assertThat(tx((StoreTransaction t) -> ledger().expire(t, b.bookingId(), deadline.minus(1, ChronoUnit.MICROS)))).isFalse();
        assertThat(find(b.bookingId()).status()).isEqualTo(BookingStatus.HELD);
        assertThat(tx((StoreTransaction t) -> ledger().expire(t, b.bookingId(), deadline))).isTrue();
        assertThat(tx((StoreTransaction t) -> ledger().expire(t, b.bookingId(), deadline))).isFalse();
        assertThat(find(b.bookingId()).status()).isEqualTo(BookingStatus.EXPIRED);
        assertThat(tx((StoreTransaction t) -> ledger().cancel(t, b.bookingId(), deadline))).as("expired is not active").isFalse();
        assertThat(tx((StoreTransaction t) -> ledger().confirm(t, b.bookingId(), now))).isFalse();

        Booking next = claimed(hold(slot, Fixtures.student()));
        assertThat(next.seat()).isEqualTo(b.seat());
    }

    @Test
    void cancelSlotCancelsEveryActiveBookingOnce() {
        Slot slot = slot(5);
        Booking h1 = claimed(hold(slot, Fixtures.student()));
        Booking h2 = claimed(hold(slot, Fixtures.student()));
        Booking c = claimed(hold(slot, Fixtures.student()));
        Booking gone = claimed(hold(slot, Fixtures.student()));
        assertThat(tx((StoreTransaction t) -> ledger().confirm(t, c.bookingId(), now))).isTrue();
        assertThat(tx((StoreTransaction t) -> ledger().cancel(t, gone.bookingId(), now))).isTrue();
        Slot bystander = slot(1);
        Booking other = claimed(hold(bystander, Fixtures.student()));

        List<BookingId> cancelled = tx(t -> ledger().cancelSlot(t, slot.slotId(), now));

        assertThat(cancelled).containsExactlyInAnyOrder(h1.bookingId(), h2.bookingId(), c.bookingId());
        for (BookingId id : cancelled) {
            assertThat(find(id).status()).isEqualTo(BookingStatus.CANCELLED);
        }
        assertThat(tx((StoreTransaction t) -> ledger().findSlot(t, slot.slotId()))).map(Slot::status).contains(SlotStatus.CANCELLED);
        assertThat(count(slot, now)).isEqualTo(new SeatCount(0, 0));
        assertThat(tx((StoreTransaction t) -> ledger().liveBookings(t, slot.slotId(), now))).isEmpty();
        assertThat(tx((StoreTransaction t) -> ledger().cancelSlot(t, slot.slotId(), now))).as("second call").isEmpty();
        assertThat(find(other.bookingId()).status()).isEqualTo(BookingStatus.HELD);
        assertThat(tx((StoreTransaction t) -> ledger().findSlot(t, bystander.slotId()))).map(Slot::status).contains(SlotStatus.OPEN);
    }

    @Test
    void expireDueExpiresEachDueHoldOnceInBatches() {
        Slot a = slot(20);
        Slot b = slot(20);
        Instant deadline = now.plus(Duration.ofMinutes(1));
        Set<BookingId> due = new HashSet<>();
        for (int i = 0; i < 7; i++) {
            due.add(claimed(heldUntil(i % 2 == 0 ? a : b, deadline.minusSeconds(i))).bookingId());
        }
        Booking later = claimed(heldUntil(a, deadline.plusSeconds(1)));
        Booking confirmed = claimed(heldUntil(b, deadline.minusSeconds(30)));
        assertThat(tx((StoreTransaction t) -> ledger().confirm(t, confirmed.bookingId(), now))).isTrue();

        Set<BookingId> expired = new HashSet<>();
        List<Integer> batches = new ArrayList<>();
        List<Booking> batch;
        do {
            assertThat(batches).as("expireDue keeps answering").hasSizeLessThan(10);
            batch = tx(t -> ledger().expireDue(t, deadline, 3));
            batches.add(batch.size());
            for (Booking e : batch) {
                assertThat(expired.add(e.bookingId())).as("expired twice: " + e.bookingId()).isTrue();
            }
        } while (!batch.isEmpty());

        assertThat(batches).containsExactly(3, 3, 1, 0);
        assertThat(expired).isEqualTo(due);
        for (BookingId id : due) {
            assertThat(find(id).status()).isEqualTo(BookingStatus.EXPIRED);
        }
        assertThat(find(later.bookingId()).status()).isEqualTo(BookingStatus.HELD);
        assertThat(find(confirmed.bookingId()).status()).isEqualTo(BookingStatus.CONFIRMED);
        assertThat(count(a, deadline).taken() + count(b, deadline).taken()).isEqualTo(2);
    }

    @Test
    void concurrentSweepersExpireEachDueHoldExactlyOnce() {
        Slot slot = slot(60);
        Instant deadline = now.plus(Duration.ofMinutes(1));
        Set<BookingId> due = new HashSet<>();
        for (int i = 0; i < 40; i++) {
            due.add(claimed(heldUntil(slot, deadline.minusMillis(i))).bookingId());
        }
        Booking live = claimed(heldUntil(slot, deadline.plusMillis(1)));

        List<List<BookingId>> swept = Concurrent.run(2, i -> {
            List<BookingId> mine = new ArrayList<>();
            List<Booking> batch;
            do {
                assertThat(mine).as("expireDue keeps answering").hasSizeLessThan(100);
                batch = tx(t -> ledger().expireDue(t, deadline, 3));
                batch.forEach(b -> mine.add(b.bookingId()));
            } while (!batch.isEmpty());
            return mine;
        });

        List<BookingId> all = new ArrayList<>(swept.get(0));
        all.addAll(swept.get(1));
        assertThat(all).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(due);
        for (BookingId id : due) {
            assertThat(find(id).status()).isEqualTo(BookingStatus.EXPIRED);
        }
        assertThat(tx((StoreTransaction t) -> ledger().liveBookings(t, slot.slotId(), deadline))).extracting(Booking::bookingId)
                .containsExactly(live.bookingId());
    }

    @Test
    void slotsArePagedInIdOrder() {
        List<SlotId> ids = IntStream.rangeClosed(1, 7).mapToObj(i -> SlotId.of("page-" + i)).toList();
        List<SlotId> shuffled = new ArrayList<>(ids);
        java.util.Collections.shuffle(shuffled, Fixtures.random("slotsArePagedInIdOrder"));
        shuffled.forEach(id -> assertThat(tx((StoreTransaction t) -> ledger().insertSlot(t, newSlot(id, 2)))).isTrue());

        List<SlotId> seen = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        SlotId after = null;
        for (int pages = 0; ; pages++) {
            assertThat(pages).as("paging does not end: a page starts at or before its 'after'").isLessThan(10);
            SlotId from = after;
            List<Slot> page = tx(t -> ledger().slots(t, from, 3));
            sizes.add(page.size());
            if (page.isEmpty()) {
                break;
            }
            page.forEach(s -> seen.add(s.slotId()));
            after = page.get(page.size() - 1).slotId();
        }

        assertThat(seen).containsExactlyElementsOf(ids);
        assertThat(sizes).containsExactly(3, 3, 1, 0);
        assertThat(tx((StoreTransaction t) -> ledger().slots(t, SlotId.of("page-7"), 3))).isEmpty();
        assertThat(tx((StoreTransaction t) -> ledger().slots(t, SlotId.of("page-0"), 1))).extracting(Slot::slotId)
                .containsExactly(SlotId.of("page-1"));
    }

    // ---------------------------------------------------------------- isolation and data

    @Test
    void tenantsNeverSeeEachOther() {
        TenantId otherTenant = Fixtures.tenant();
        SlotId slotId = Fixtures.slot();
        StudentId student = Fixtures.student();
        BookingId bookingId = BookingId.random();
        RequestId requestId = RequestId.random();
        NewBooking nb = new NewBooking(bookingId, requestId, slotId, student, BookingStatus.HELD, now.plus(TTL));
        Slot mine = newSlot(slotId, 1);
        assertThat(tx((StoreTransaction t) -> ledger().insertSlot(t, mine))).isTrue();
        Booking booked = claimed(nb);

        assertThat(tx(otherTenant, (StoreTransaction t) -> t.tenantId())).isEqualTo(otherTenant);
        assertThat(tx(otherTenant, (StoreTransaction t) -> ledger().findSlot(t, slotId))).isEmpty();
        assertThat(tx(otherTenant, (StoreTransaction t) -> ledger().findBooking(t, bookingId))).isEmpty();
        assertThat(tx(otherTenant, (StoreTransaction t) -> ledger().findByRequest(t, requestId))).isEmpty();
        assertThat(tx(otherTenant, (StoreTransaction t) -> ledger().findActive(t, slotId, student))).isEmpty();
        assertThat(tx(otherTenant, (StoreTransaction t) -> ledger().count(t, slotId, now))).isEqualTo(new SeatCount(0, 0));
        assertThat(tx(otherTenant, (StoreTransaction t) -> ledger().liveBookings(t, slotId, now))).isEmpty();
        assertThat(tx(otherTenant, (StoreTransaction t) -> ledger().slots(t, null, 10))).isEmpty();
        assertThat(tx(otherTenant, (StoreTransaction t) -> ledger().expireDue(t, nb.heldUntil().plusSeconds(1), 10))).isEmpty();
        assertThat(tx(otherTenant, (StoreTransaction t) -> ledger().cancel(t, bookingId, now))).isFalse();
        assertThat(tx(otherTenant, (StoreTransaction t) -> ledger().confirm(t, bookingId, now))).isFalse();
        assertThat(tx(otherTenant, (StoreTransaction t) -> ledger().expire(t, bookingId, nb.heldUntil()))).isFalse();
        assertThat(tx(otherTenant, (StoreTransaction t) -> ledger().cancelSlot(t, slotId, now))).isEmpty();

        Slot theirs = new Slot(otherTenant, slotId, mine.coachId(), mine.roomId(), mine.time(), 1, SlotStatus.OPEN);
        assertThat(tx(otherTenant, (StoreTransaction t) -> ledger().insertSlot(t, theirs))).as("same slot id, other tenant").isTrue();
        Booking twin = tx(otherTenant, t -> ledger().claimSeat(t, nb, now)).orElseThrow().booking();
        assertThat(twin.tenantId()).isEqualTo(otherTenant);
        assertThat(tx(otherTenant, (StoreTransaction t) -> ledger().cancelSlot(t, slotId, now))).containsExactly(bookingId);

        assertThat(tx((StoreTransaction t) -> ledger().findBooking(t, bookingId))).contains(booked);
        assertThat(tx((StoreTransaction t) -> ledger().findSlot(t, slotId))).contains(mine);
        assertThat(tx((StoreTransaction t) -> ledger().slots(t, null, 10))).containsExactly(mine);
        assertThat(count(mine, now)).isEqualTo(new SeatCount(1, 0));
    }

    @Test
    void idsAreStoredAndFoundAsPlainData() {
        String[] nasty = {"it's", "a\"b", "x; DROP TABLE slot; --", "100%", "_", "%", "a_b", "{tag}", "back\\slash",
            "学生-Ω-é", "emoji-🎓", "*", "?", "[x]", "$1", ":colon:"};
        SlotId slotId = SlotId.of("slot ' ; % _ { } 時間 " + Fixtures.shortRandom());
        Slot slot = newSlot(slotId, nasty.length);
        assertThat(tx((StoreTransaction t) -> ledger().insertSlot(t, slot))).isTrue();
        List<Booking> booked = new ArrayList<>();
        for (String s : nasty) {
            NewBooking nb = new NewBooking(BookingId.of("b-" + s), RequestId.of("r-" + s), slotId, StudentId.of(s),
                    BookingStatus.HELD, now.plus(TTL));
            booked.add(claimed(nb));
        }

        assertThat(tx((StoreTransaction t) -> ledger().findSlot(t, slotId))).contains(slot);
        assertThat(tx((StoreTransaction t) -> ledger().slots(t, null, 10))).containsExactly(slot);
        for (Booking b : booked) {
            assertThat(tx((StoreTransaction t) -> ledger().findBooking(t, b.bookingId()))).contains(b);
            assertThat(tx((StoreTransaction t) -> ledger().findByRequest(t, b.requestId()))).contains(b);
            assertThat(tx((StoreTransaction t) -> ledger().findActive(t, slotId, b.studentId()))).contains(b);
        }
        assertThat(tx((StoreTransaction t) -> ledger().findActive(t, slotId, StudentId.of("a%")))).isEmpty();
        assertThat(tx((StoreTransaction t) -> ledger().findActive(t, slotId, StudentId.of("ab")))).isEmpty();
        assertThat(tx((StoreTransaction t) -> ledger().findBooking(t, BookingId.of("b-%%")))).isEmpty();
        assertThat(tx((StoreTransaction t) -> ledger().liveBookings(t, slotId, now))).containsExactlyInAnyOrderElementsOf(booked);
        assertThat(tx((StoreTransaction t) -> ledger().cancel(t, BookingId.of("b-%"), now))).isTrue();
        assertThat(find(BookingId.of("b-100%")).status()).isEqualTo(BookingStatus.HELD);
        assertThat(find(BookingId.of("b-_")).status()).isEqualTo(BookingStatus.HELD);
    }

    @Test
    void instantsRoundTripAtMicrosecondPrecision() {
        Instant start = now.plus(Duration.ofDays(1)).truncatedTo(ChronoUnit.SECONDS).plusNanos(123_456_000);
        Slot slot = new Slot(tenant, Fixtures.slot(), Fixtures.coach(), Fixtures.room(),
                TimeRange.of(start, start.plus(Duration.ofMinutes(45)).plusNanos(1_000)), 2, SlotStatus.OPEN);
        assertThat(tx((StoreTransaction t) -> ledger().insertSlot(t, slot))).isTrue();
        Instant heldUntil = now.plus(TTL).plusNanos(654_321_000);
        Instant at = now.plusNanos(987_000);
        NewBooking nb = new NewBooking(BookingId.random(), RequestId.random(), slot.slotId(), Fixtures.student(),
                BookingStatus.HELD, heldUntil);

        Booking b = claim(nb, at).orElseThrow().booking();

        assertThat(tx((StoreTransaction t) -> ledger().findSlot(t, slot.slotId()))).map(Slot::time).contains(slot.time());
        Booking read = find(b.bookingId());
        assertThat(read.heldUntil()).isEqualTo(heldUntil.truncatedTo(ChronoUnit.MICROS));
        assertThat(read.createdAt()).isEqualTo(at);
        assertThat(read).isEqualTo(b);
        assertThat(count(slot, read.heldUntil().minus(1, ChronoUnit.MICROS)).held()).isEqualTo(1);
        assertThat(count(slot, read.heldUntil()).held()).isZero();
        assertThat(tx((StoreTransaction t) -> ledger().expire(t, b.bookingId(), read.heldUntil().minus(1, ChronoUnit.MICROS))))
                .isFalse();
        assertThat(tx((StoreTransaction t) -> ledger().expire(t, b.bookingId(), read.heldUntil()))).isTrue();
    }

    // ---------------------------------------------------------------- transactions

    @Test
    void setRollbackOnlyRollsBackEveryWrite() {
        Slot kept = slot(3);
        Booking held = claimed(hold(kept, Fixtures.student()));
        Booking toCancel = claimed(hold(kept, Fixtures.student()));
        Slot unborn = newSlot(Fixtures.slot(), 2);
        NewBooking ghost = hold(kept, Fixtures.student());

        String result = tx(t -> {
            assertThat(t.tenantId()).isEqualTo(tenant);
            assertThat(t.isRollbackOnly()).isFalse();
            writeEverything(t, kept, held, toCancel, unborn, ghost);
            t.setRollbackOnly();
            assertThat(t.isRollbackOnly()).isTrue();
            return "returned";
        });

        assertThat(result).isEqualTo("returned");
        assertNothingWritten(kept, held, toCancel, unborn, ghost);
    }

    @Test
    void aThrowingWorkRollsBackEveryWriteAndItsExceptionPropagates() {
        Slot kept = slot(3);
        Booking held = claimed(hold(kept, Fixtures.student()));
        Booking toCancel = claimed(hold(kept, Fixtures.student()));
        Slot unborn = newSlot(Fixtures.slot(), 2);
        NewBooking ghost = hold(kept, Fixtures.student());
        IllegalStateException boom = new IllegalStateException("boom");

        assertThatThrownBy(() -> run(t -> {
            writeEverything(t, kept, held, toCancel, unborn, ghost);
            throw boom;
        })).isSameAs(boom);

        assertNothingWritten(kept, held, toCancel, unborn, ghost);
    }

    @Test
    void aRolledBackTakeOverLeavesTheExpiredHoldAlone() {
        Slot slot = slot(1);
        Booking first = claimed(hold(slot, Fixtures.student()));
        NewBooking second = hold(slot, Fixtures.student());

        run(t -> {
            assertThat(ledger().claimSeat(t, second, first.heldUntil()).orElseThrow().displaced())
                    .contains(first.bookingId());
            t.setRollbackOnly();
        });

        assertThat(find(first.bookingId())).isEqualTo(first);
        assertThat(tx((StoreTransaction t) -> ledger().findBooking(t, second.bookingId()))).isEmpty();
        assertThat(claim(second, first.heldUntil()).orElseThrow().displaced()).contains(first.bookingId());
    }

    @Test
    void aForeignTransactionIsRefused() {
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
        Slot slot = newSlot(Fixtures.slot(), 1);

        assertThatThrownBy(() -> ledger().insertSlot(fake, slot)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ledger().findSlot(fake, slot.slotId())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ledger().claimSeat(fake, hold(slot, Fixtures.student()), now))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(tx((StoreTransaction t) -> ledger().findSlot(t, slot.slotId()))).isEmpty();
    }

    private void writeEverything(StoreTransaction t, Slot kept, Booking held, Booking toCancel, Slot unborn,
                                 NewBooking ghost) {
        assertThat(ledger().insertSlot(t, unborn)).isTrue();
        assertThat(ledger().claimSeat(t, ghost, now)).isPresent();
        assertThat(ledger().confirm(t, held.bookingId(), now)).isTrue();
        assertThat(ledger().cancel(t, toCancel.bookingId(), now)).isTrue();
        assertThat(ledger().cancelSlot(t, kept.slotId(), now)).hasSize(2);
        assertThat(ledger().findSlot(t, kept.slotId())).map(Slot::status).contains(SlotStatus.CANCELLED);
        assertThat(ledger().findBooking(t, ghost.bookingId())).map(Booking::status)
                .contains(BookingStatus.CANCELLED);
    }

    private void assertNothingWritten(Slot kept, Booking held, Booking toCancel, Slot unborn, NewBooking ghost) {
        assertThat(tx((StoreTransaction t) -> ledger().findSlot(t, unborn.slotId()))).isEmpty();
        assertThat(tx((StoreTransaction t) -> ledger().findBooking(t, ghost.bookingId()))).isEmpty();
        assertThat(tx((StoreTransaction t) -> ledger().findByRequest(t, ghost.requestId()))).isEmpty();
        assertThat(tx((StoreTransaction t) -> ledger().findSlot(t, kept.slotId()))).contains(kept);
        assertThat(find(held.bookingId())).isEqualTo(held);
        assertThat(find(toCancel.bookingId())).isEqualTo(toCancel);
        assertThat(count(kept, now)).isEqualTo(new SeatCount(2, 0));
        assertThat(tx((StoreTransaction t) -> ledger().liveBookings(t, kept.slotId(), now))).extracting(Booking::bookingId)
                .containsExactlyInAnyOrder(held.bookingId(), toCancel.bookingId());
        assertThat(claim(ghost, now)).as("the ghost's seat and ids are free again").isPresent();
    }

    // ---------------------------------------------------------------- helpers

    protected <T> T tx(Function<StoreTransaction, T> work) {
        return ledger().inTransaction(tenant, work);
    }

    protected <T> T tx(TenantId tenantId, Function<StoreTransaction, T> work) {
        return ledger().inTransaction(tenantId, work);
    }

    protected void run(Consumer<StoreTransaction> work) {
        tx(t -> {
            work.accept(t);
            return null;
        });
    }

    /** A new OPEN slot of this test's tenant, stored. */
    protected Slot slot(int capacity) {
        Slot slot = newSlot(Fixtures.slot(), capacity);
        assertThat(tx((StoreTransaction t) -> ledger().insertSlot(t, slot))).isTrue();
        return slot;
    }

    protected Slot newSlot(SlotId id, int capacity) {
        return new Slot(tenant, id, CoachId.of("coach-" + Fixtures.shortRandom()),
                RoomId.of("room-" + Fixtures.shortRandom()),
                TimeRange.of(Fixtures.nextHour(now), Duration.ofHours(1)), capacity, SlotStatus.OPEN);
    }

    protected NewBooking hold(Slot slot, StudentId student) {
        return new NewBooking(BookingId.random(), RequestId.random(), slot.slotId(), student, BookingStatus.HELD,
                now.plus(TTL));
    }

    protected NewBooking heldUntil(Slot slot, Instant deadline) {
        return new NewBooking(BookingId.random(), RequestId.random(), slot.slotId(), Fixtures.student(),
                BookingStatus.HELD, deadline);
    }

    protected Optional<SeatClaim> claim(NewBooking booking, Instant at) {
        return tx(t -> ledger().claimSeat(t, booking, at));
    }

    protected Booking claimed(NewBooking booking) {
        return claim(booking, now).orElseThrow(() -> new AssertionError("no seat for " + booking)).booking();
    }

    protected Booking find(BookingId id) {
        return tx(t -> ledger().findBooking(t, id)).orElseThrow(() -> new AssertionError("no booking " + id));
    }

    protected SeatCount count(Slot slot, Instant at) {
        return count(slot.slotId(), at);
    }

    protected SeatCount count(SlotId slotId, Instant at) {
        return tx(t -> ledger().count(t, slotId, at));
    }
}
