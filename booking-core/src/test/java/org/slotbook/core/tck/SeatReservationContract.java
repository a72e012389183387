package org.slotbook.core.tck;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.spi.GateDecision;
import org.slotbook.core.spi.GateHolder;
import org.slotbook.core.spi.GateMark;
import org.slotbook.core.spi.GateOutcome;
import org.slotbook.core.spi.GateSync;
import org.slotbook.core.spi.GateView;
import org.slotbook.core.spi.SeatReservation;

/**
 * What every {@link SeatReservation} (gate) must do. Each test uses a fresh tenant and slot, so one
 * gate (one server) may serve every test and run.
 *
 * <p>The gate keeps its own time. A subclass tells the suite how to read it ({@link #gateNow()}, the
 * system clock by default: a gate on the same host) and how to let it pass ({@link #elapse}: a real
 * sleep by default; a gate on a test clock moves that clock instead). Tests that need a hold to
 * expire use {@link #SHORT} holds, so a real sleep stays short; checks made before such a hold
 * expires must finish within {@link #SHORT}.
 */
public abstract class SeatReservationContract {
    /** How long the holds of these tests last unless a test needs them to expire. */
    protected static final Duration TTL = Duration.ofMinutes(10);
    /** A hold that a test lets expire. */
    protected static final Duration SHORT = Duration.ofSeconds(2);

    // Fresh for every test, also when a subclass shares one instance across tests (PER_CLASS).
    protected TenantId tenant;
    protected SlotId slot;
    protected Instant keepUntil;

    @BeforeEach
    void freshTenant() {
        tenant = Fixtures.tenant();
        slot = Fixtures.slot();
        keepUntil = gateNow().plus(Duration.ofDays(2));
    }

    protected abstract SeatReservation reservation();

    /** The gate's current time, at millisecond precision. */
    protected Instant gateNow() {
        return Instant.now().truncatedTo(ChronoUnit.MILLIS);
    }

    /** Lets at least {@code duration} pass on the gate's clock. */
    protected void elapse(Duration duration) {
        try {
            Thread.sleep(duration.toMillis() + 20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    // ---------------------------------------------------------------- holding

    @Test
    void aSlotThatWasNeverInitializedIsMissing() {
        StudentId student = Fixtures.student();
        RequestId request = RequestId.random();
        assertThat(hold(student, request)).isEqualTo(GateDecision.MISSING);
        assertThat(reservation().inspect(tenant, slot)).isEmpty();
        assertThat(reservation().release(tenant, slot, student, request)).isFalse();
        reservation().confirm(tenant, slot, student, request);
        assertThat(reservation().inspect(tenant, slot)).as("confirm and release create nothing").isEmpty();
        assertThat(hold(student, request)).isEqualTo(GateDecision.MISSING);
    }

    @Test
    void aSlotWhoseBookingOpensLaterIsNotOpenUntilThenByTheGatesClock() {
        Instant opensAt = gateNow().plus(Duration.ofHours(1)).plus(123, ChronoUnit.MICROS);
        reservation().initialize(tenant, slot, 2, opensAt, keepUntil);
        StudentId student = Fixtures.student();
        assertThat(hold(student, RequestId.random())).isEqualTo(GateDecision.notOpen(opensAt));
        assertThat(view().holders()).as("nothing held before the opening").isEmpty();
        assertThat(view().capacity()).isEqualTo(2);

        // within the tolerance for clocks that differ, the gate lets requests through to the store
        SlotId soon = Fixtures.slot();
        reservation().initialize(tenant, soon, 2, gateNow().plus(SeatReservation.OPENING_TOLERANCE).minusMillis(300),
                keepUntil);
        assertThat(reservation().tryHold(tenant, soon, student, RequestId.random(), TTL)).isEqualTo(GateDecision.HELD);

        // a reconcile carries the opening too: moved earlier, the slot opens
        assertThat(reservation().reconcile(tenant, slot, 2, gateNow().minusSeconds(5), List.of(), null, Duration.ZERO,
                keepUntil).capacityFixed()).isTrue();
        assertThat(hold(student, RequestId.random())).isEqualTo(GateDecision.HELD);
        reservation().reconcile(tenant, slot, 2, opensAt, List.of(), null, Duration.ofMinutes(1), keepUntil);
        assertThat(hold(Fixtures.student(), RequestId.random())).isEqualTo(GateDecision.notOpen(opensAt));
    }

    @Test
    void holdsUpToCapacityThenFullWithTheGatesOwnTime() {
        init(3);
        List<GateHolder> expected = new ArrayList<>();
        Instant before = gateNow();
        for (int i = 0; i < 3; i++) {
            StudentId s = Fixtures.student();
            RequestId r = RequestId.random();
            assertThat(hold(s, r)).isEqualTo(GateDecision.HELD);
            expected.add(new GateHolder(s, r, before, null));
        }
        Instant after = gateNow();

        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.FULL);
        GateView view = view();
        assertThat(view.capacity()).isEqualTo(3);
        assertThat(view.remaining()).isZero();
        assertThat(view.holders()).extracting(GateHolder::studentId, GateHolder::requestId)
                .containsExactlyInAnyOrderElementsOf(expected.stream()
                        .map(h -> org.assertj.core.groups.Tuple.tuple(h.studentId(), h.requestId())).toList());
        assertThat(view.holders()).allSatisfy(h -> {
            assertThat(h.takenAt()).isBetween(before.minusMillis(2), after.plusMillis(2));
            assertThat(h.expiresAt()).isEqualTo(h.takenAt().plus(TTL));
        });
    }

    @Test
    void theSameStudentAgainIsADuplicateUnderTheOriginalRequestId() {
        init(2);
        StudentId student = Fixtures.student();
        RequestId original = RequestId.random();
        assertThat(hold(student, original)).isEqualTo(GateDecision.HELD);

        assertThat(hold(student, RequestId.random())).isEqualTo(GateDecision.duplicate(original));
        assertThat(hold(student, original)).isEqualTo(GateDecision.duplicate(original));
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.HELD);
        assertThat(hold(student, RequestId.random())).as("full, but the student holds: duplicate before full")
                .isEqualTo(GateDecision.duplicate(original));
        assertThat(hold(student, original)).as("a retry of the held request on a full slot")
                .isEqualTo(GateDecision.duplicate(original));
        assertThat(view().holders()).hasSize(2);
    }

    @Test
    void initializeNeverOverwrites() {
        init(1);
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.HELD);

        reservation().initialize(tenant, slot, 5, keepUntil);

        assertThat(view().capacity()).isEqualTo(1);
        assertThat(view().remaining()).isZero();
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.FULL);
    }

    @Test
    void releaseIsIdempotentAndGivesTheSeatBack() {
        init(1);
        StudentId student = Fixtures.student();
        RequestId request = RequestId.random();
        assertThat(hold(student, request)).isEqualTo(GateDecision.HELD);

        assertThat(reservation().release(tenant, slot, student, request)).isTrue();
        assertThat(reservation().release(tenant, slot, student, request)).isFalse();
        assertThat(reservation().release(tenant, slot, Fixtures.student(), RequestId.random())).as("never held")
                .isFalse();
        assertThat(view().remaining()).isEqualTo(1);
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.HELD);
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.FULL);
    }

    @Test
    void releaseRemovesOnlyTheHolderOfItsRequest() {
        init(1);
        StudentId student = Fixtures.student();
        RequestId request = RequestId.random();
        assertThat(hold(student, request)).isEqualTo(GateDecision.HELD);

        assertThat(reservation().release(tenant, slot, student, RequestId.random())).as("another request")
                .isFalse();
        assertThat(view().holders()).extracting(GateHolder::requestId).containsExactly(request);
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.FULL);
        assertThat(reservation().release(tenant, slot, student, request)).isTrue();
        assertThat(view().holders()).isEmpty();
    }

    @Test
    void aLateReleaseOfAnOldRequestLeavesTheStudentsNewHold() {
        init(1);
        StudentId student = Fixtures.student();
        RequestId old = RequestId.random();
        assertThat(hold(student, old, SHORT)).isEqualTo(GateDecision.HELD);
        elapse(SHORT);
        RequestId fresh = RequestId.random();
        assertThat(hold(student, fresh)).isEqualTo(GateDecision.HELD);

        assertThat(reservation().release(tenant, slot, student, old)).isFalse();

        assertThat(view().holders()).extracting(GateHolder::requestId).containsExactly(fresh);
        assertThat(hold(student, RequestId.random())).isEqualTo(GateDecision.duplicate(fresh));
        assertThat(reservation().release(tenant, slot, student, fresh)).isTrue();
    }

    @Test
    void confirmPinsOnlyTheHolderOfItsRequest() {
        init(1);
        StudentId student = Fixtures.student();
        RequestId request = RequestId.random();
        assertThat(hold(student, request, SHORT)).isEqualTo(GateDecision.HELD);

        reservation().confirm(tenant, slot, student, RequestId.random());
        assertThat(view().holders()).as("another request pins nothing").allSatisfy(h ->
                assertThat(h.pinned()).isFalse());
        reservation().confirm(tenant, slot, student, request);
        reservation().confirm(tenant, slot, student, request);
        reservation().confirm(tenant, slot, Fixtures.student(), RequestId.random());
        GateHolder pinned = view().holders().get(0);
        assertThat(pinned.pinned()).isTrue();
        assertThat(pinned.requestId()).isEqualTo(request);

        elapse(SHORT);
        assertThat(hold(Fixtures.student())).as("a pinned holder never expires").isEqualTo(GateDecision.FULL);
        assertThat(view().holders()).containsExactly(pinned);
        assertThat(reservation().release(tenant, slot, student, request)).isTrue();
        assertThat(view().remaining()).isEqualTo(1);
    }

    @Test
    void expiredHoldersAreReclaimedByTheNextHold() {
        init(1);
        StudentId first = Fixtures.student();
        RequestId firstRequest = RequestId.random();
        assertThat(hold(first, firstRequest, SHORT)).isEqualTo(GateDecision.HELD);
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.FULL);
        assertThat(view().holders()).extracting(GateHolder::studentId).containsExactly(first);

        elapse(SHORT);
        assertThat(view().holders()).as("expiresAt <= now is not live").isEmpty();
        assertThat(view().remaining()).isEqualTo(1);

        StudentId second = Fixtures.student();
        assertThat(hold(second)).isEqualTo(GateDecision.HELD);
        assertThat(view().holders()).extracting(GateHolder::studentId).containsExactly(second);
        assertThat(hold(first)).as("first's hold is gone").isEqualTo(GateDecision.FULL);
        assertThat(reservation().release(tenant, slot, first, firstRequest)).isFalse();
    }

    @Test
    void aStudentWhoseHoldExpiredMayHoldAgain() {
        init(2);
        StudentId student = Fixtures.student();
        assertThat(hold(student, RequestId.random(), SHORT)).isEqualTo(GateDecision.HELD);
        elapse(SHORT);

        RequestId again = RequestId.random();
        assertThat(hold(student, again)).isEqualTo(GateDecision.HELD);
        assertThat(view().holders()).extracting(GateHolder::requestId).containsExactly(again);
    }

    // ---------------------------------------------------------------- request ids the gate has seen

    @Test
    void aRetryOfARequestWhoseHolderWasReleasedIsAReplayOnAFullSlot() {
        init(1);
        StudentId student = Fixtures.student();
        RequestId request = RequestId.random();
        assertThat(hold(student, request)).isEqualTo(GateDecision.HELD);
        assertThat(reservation().release(tenant, slot, student, request)).isTrue();
        StudentId other = Fixtures.student();
        assertThat(hold(other)).isEqualTo(GateDecision.HELD);

        assertThat(hold(student, request)).as("the released request again").isEqualTo(GateDecision.REPLAY);
        // the release took the student's holder: another request of theirs may be granted by the ledger before
        // its seat is counted here again, so the ledger answers the student (AlreadyBooked, or Full)
        assertThat(hold(student, RequestId.random())).as("a new request of the student").isEqualTo(GateDecision.REPLAY);
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.FULL);
        assertThat(view().holders()).extracting(GateHolder::studentId).containsExactly(other);
    }

    @Test
    void aRetryOfARequestWhoseHolderExpiredIsAReplayOnAFullSlot() {
        init(1);
        StudentId student = Fixtures.student();
        RequestId request = RequestId.random();
        assertThat(hold(student, request, SHORT)).isEqualTo(GateDecision.HELD);
        elapse(SHORT);
        StudentId other = Fixtures.student();
        assertThat(hold(other)).isEqualTo(GateDecision.HELD);
        // a hold on the full slot reclaims the expired holder
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.FULL);

        assertThat(hold(student, request)).isEqualTo(GateDecision.REPLAY);
        assertThat(hold(student, RequestId.random())).isEqualTo(GateDecision.FULL);
        assertThat(view().holders()).extracting(GateHolder::studentId).containsExactly(other);
    }

    @Test
    void aRequestWhoseExpiredHolderWasReplacedByTheStudentsNewOneIsRemembered() {
        init(2);
        StudentId student = Fixtures.student();
        RequestId old = RequestId.random();
        assertThat(hold(student, old, SHORT)).isEqualTo(GateDecision.HELD);
        elapse(SHORT);
        RequestId fresh = RequestId.random();
        assertThat(hold(student, fresh)).isEqualTo(GateDecision.HELD);
        assertThat(reservation().release(tenant, slot, student, fresh)).isTrue();
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.HELD);
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.HELD);

        assertThat(hold(student, old)).isEqualTo(GateDecision.REPLAY);
        assertThat(hold(student, fresh)).isEqualTo(GateDecision.REPLAY);
        // the release of `fresh` took the student's holder: the ledger answers the student
        assertThat(hold(student, RequestId.random())).isEqualTo(GateDecision.REPLAY);
        assertThat(hold(Fixtures.student(), RequestId.random())).isEqualTo(GateDecision.FULL);
    }

    @Test
    void transferGivesTheStudentsHolderToTheNewRequestInOneStep() {
        init(1);
        StudentId student = Fixtures.student();
        RequestId old = RequestId.random();
        assertThat(hold(student, old)).isEqualTo(GateDecision.HELD);
        reservation().confirm(tenant, slot, student, old);
        RequestId fresh = RequestId.random();

        assertThat(reservation().transfer(tenant, slot, student, old, fresh, TTL)).isEqualTo(GateDecision.HELD);

        GateHolder holder = holderOf(view(), student);
        assertThat(holder.requestId()).isEqualTo(fresh);
        assertThat(holder.pinned()).as("the new request's booking is pinned by its own confirm").isFalse();
        assertThat(reservation().release(tenant, slot, student, old)).as("a late release of the old request")
                .isFalse();
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.FULL);
        assertThat(hold(student, fresh)).isEqualTo(GateDecision.duplicate(fresh));
        assertThat(reservation().transfer(tenant, slot, student, old, fresh, TTL)).as("again: nothing changes")
                .isEqualTo(GateDecision.HELD);
        assertThat(view().holders()).extracting(GateHolder::requestId).containsExactly(fresh);
        checkStoredHolders(tenant, slot, view());
        assertThat(reservation().release(tenant, slot, student, fresh)).isTrue();
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.HELD);
        assertThat(hold(student, old)).as("the old request is remembered").isEqualTo(GateDecision.REPLAY);
    }

    @Test
    void transferWithoutTheOldHolderTakesASeatOrAnswersFullAndLeavesAThirdRequestAlone() {
        init(2);
        StudentId student = Fixtures.student();
        RequestId gone = RequestId.random();
        RequestId fresh = RequestId.random();
        assertThat(reservation().transfer(tenant, slot, student, gone, fresh, TTL)).isEqualTo(GateDecision.HELD);
        assertThat(holderOf(view(), student).requestId()).isEqualTo(fresh);

        StudentId holding = Fixtures.student();
        RequestId third = RequestId.random();
        assertThat(hold(holding, third)).isEqualTo(GateDecision.HELD);
        assertThat(reservation().transfer(tenant, slot, holding, RequestId.random(), RequestId.random(), TTL))
                .isEqualTo(GateDecision.duplicate(third));
        assertThat(holderOf(view(), holding).requestId()).isEqualTo(third);

        StudentId none = Fixtures.student();
        RequestId before = RequestId.random();
        assertThat(reservation().transfer(tenant, slot, none, before, RequestId.random(), TTL))
                .isEqualTo(GateDecision.FULL);
        assertThat(view().holders()).hasSize(2);
        assertThat(hold(none, before)).as("the old request is remembered").isEqualTo(GateDecision.REPLAY);
    }

    @Test
    void withdrawRemovesOnlyTheHolderOfItsRequestAndRemembersNothing() {
        init(2);
        StudentId original = Fixtures.student();
        RequestId request = RequestId.random();
        assertThat(hold(original, request)).isEqualTo(GateDecision.HELD);
        StudentId reusing = Fixtures.student();
        assertThat(hold(reusing, request)).isEqualTo(GateDecision.HELD);

        assertThat(reservation().withdraw(tenant, slot, reusing, request)).isTrue();
        assertThat(reservation().withdraw(tenant, slot, reusing, request)).isFalse();
        assertThat(reservation().withdraw(tenant, slot, original, RequestId.random())).isFalse();

        assertThat(view().holders()).extracting(GateHolder::studentId, GateHolder::requestId)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(original, request));
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.HELD);
        assertThat(hold(reusing, request)).as("no tombstone: a new request on a full slot")
                .isEqualTo(GateDecision.FULL);
        checkStoredHolders(tenant, slot, view());
    }

    @Test
    void aReleaseAfterTheMarkKeepsTheRequestOutWhateverTheDelayAndOneBeforeItDoesNot() {
        init(3);
        StudentId student = Fixtures.student();
        RequestId request = RequestId.random();
        assertThat(hold(student, request)).isEqualTo(GateDecision.HELD);
        StudentId earlier = Fixtures.student();
        RequestId earlierRequest = RequestId.random();
        assertThat(hold(earlier, earlierRequest)).isEqualTo(GateDecision.HELD);
        // released before the mark, while another delivery of it was granted: the ledger holds it
        assertThat(reservation().release(tenant, slot, earlier, earlierRequest)).isTrue();
        elapse(Duration.ofMillis(5));

        GateMark mark = reservation().mark(tenant, slot);
        elapse(Duration.ofMillis(5));
        Instant now = gateNow();
        List<GateHolder> truth = List.of(new GateHolder(student, request, now, null),
                new GateHolder(earlier, earlierRequest, now, null));
        // cancelled after the ledger read began, released...
        assertThat(reservation().release(tenant, slot, student, request)).isTrue();
        // ...and a hold taken after the mark, which the read cannot know
        StudentId later = Fixtures.student();
        assertThat(hold(later)).isEqualTo(GateDecision.HELD);
        // ...and the reconcile comes late
        elapse(Duration.ofMillis(50));

        assertThat(mark).as("a gate with a clock of its own marks it").isNotNull();
        GateSync sync = reservation().reconcileFrom(tenant, slot, 3, null, truth, mark, Duration.ZERO, keepUntil);

        assertThat(view().holders()).extracting(GateHolder::studentId).containsExactlyInAnyOrder(earlier, later);
        assertThat(holderOf(view(), earlier).pinned()).isTrue();
        assertThat(sync.added()).isEqualTo(1);
        assertThat(sync.removed()).isZero();
    }

    // ---------------------------------------------------------------- concurrency

    @ParameterizedTest(name = "capacity {0}")
    @ValueSource(ints = {1, 10})
    void racingHoldsNeverOversell(int capacity) {
        init(capacity);
        int threads = 50;
        int studentsPerThread = 4;
        Set<StudentId> held = ConcurrentHashMap.newKeySet();

        List<List<GateOutcome>> outcomes = Concurrent.run(threads, i -> {
            List<GateOutcome> mine = new ArrayList<>();
            for (int k = 0; k < studentsPerThread; k++) {
                StudentId s = StudentId.of("s-" + i + "-" + k);
                GateDecision d = hold(s);
                mine.add(d.outcome());
                if (d.outcome() == GateOutcome.HELD) {
                    held.add(s);
                }
            }
            return mine;
        });

        assertThat(outcomes.stream().flatMap(List::stream))
                .allMatch(o -> o == GateOutcome.HELD || o == GateOutcome.FULL)
                .filteredOn(o -> o == GateOutcome.HELD).hasSize(capacity);
        GateView view = view();
        assertThat(view.holders()).hasSize(capacity);
        assertThat(view.holders()).extracting(GateHolder::studentId).containsExactlyInAnyOrderElementsOf(held);
        assertThat(view.remaining()).isZero();
    }

    @Test
    void racingHoldsAndReleasesLeaveExactlyTheHoldsNotReleased() {
        Random random = Fixtures.random("racingHoldsAndReleasesLeaveExactlyTheHoldsNotReleased");
        int slots = 4;
        List<SlotId> ids = new ArrayList<>();
        int[] capacity = new int[slots];
        AtomicInteger[] held = new AtomicInteger[slots];
        for (int i = 0; i < slots; i++) {
            ids.add(Fixtures.slot());
            capacity[i] = 1 + random.nextInt(20);
            held[i] = new AtomicInteger();
            reservation().initialize(tenant, ids.get(i), capacity[i], keepUntil);
        }
        int threads = 16;
        int perThread = 150;
        long[] seeds = new long[threads];
        for (int t = 0; t < threads; t++) {
            seeds[t] = random.nextLong();
        }
        // slot index + "/" + student -> the request the student holds a seat under
        Map<String, RequestId> heldBy = new ConcurrentHashMap<>();

        Concurrent.runAll(threads, t -> {
            Random r = new Random(seeds[t]);
            for (int i = 0; i < perThread; i++) {
                int s = r.nextInt(slots);
                StudentId student = StudentId.of("st" + r.nextInt(400));
                String key = s + "/" + student.value();
                RequestId request = RequestId.random();
                GateDecision d = reservation().tryHold(tenant, ids.get(s), student, request, TTL);
                if (d.outcome() != GateOutcome.HELD) {
                    continue;
                }
                assertThat(heldBy.putIfAbsent(key, request)).as("%s held twice", key).isNull();
                held[s].incrementAndGet();
                if (r.nextInt(4) == 0) {
                    // forget the hold before releasing it: once released, another thread may hold the
                    // same student at once and must find no entry
                    heldBy.remove(key);
                    held[s].decrementAndGet();
                    if (!reservation().release(tenant, ids.get(s), student, request)) {
                        heldBy.put(key, request);
                        held[s].incrementAndGet();
                    }
                }
            }
        });

        for (int s = 0; s < slots; s++) {
            GateView view = reservation().inspect(tenant, ids.get(s)).orElseThrow();
            assertThat(view.holders().size()).as("slot %d", s).isLessThanOrEqualTo(capacity[s]);
            assertThat(view.holders().size()).as("slot %d", s).isEqualTo(held[s].get());
            assertThat(view.remaining()).as("slot %d", s).isEqualTo(capacity[s] - held[s].get());
            String prefix = s + "/";
            Map<String, RequestId> expected = new HashMap<>();
            heldBy.forEach((key, request) -> {
                if (key.startsWith(prefix)) {
                    expected.put(key, request);
                }
            });
            Map<String, RequestId> inGate = new HashMap<>();
            view.holders().forEach(h -> inGate.put(prefix + h.studentId().value(), h.requestId()));
            assertThat(inGate).as("slot %d", s).isEqualTo(expected);
            checkStoredHolders(tenant, ids.get(s), view);
        }
    }

    @Test
    void aReleaseRacingTheReclaimOfTheSameHolderGivesTheSeatBackOnce() {
        int rounds = 5;
        List<SlotId> raced = new ArrayList<>();
        List<StudentId> stays = new ArrayList<>();
        List<StudentId> expiring = new ArrayList<>();
        List<RequestId> expiringRequests = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            SlotId s = Fixtures.slot();
            reservation().initialize(tenant, s, 2, keepUntil);
            raced.add(s);
            stays.add(Fixtures.student());
            expiring.add(Fixtures.student());
            expiringRequests.add(RequestId.random());
            assertThat(reservation().tryHold(tenant, s, stays.get(round), RequestId.random(), TTL))
                    .isEqualTo(GateDecision.HELD);
            assertThat(reservation().tryHold(tenant, s, expiring.get(round), expiringRequests.get(round), SHORT))
                    .isEqualTo(GateDecision.HELD);
        }
        elapse(SHORT);
        for (int round = 0; round < rounds; round++) {
            SlotId s = raced.get(round);
            StudentId gone = expiring.get(round);
            RequestId goneRequest = expiringRequests.get(round);
            List<Object> results = Concurrent.run(6, i -> i < 2
                    ? (Object) reservation().release(tenant, s, gone, goneRequest)
                    : reservation().tryHold(tenant, s, Fixtures.student(), RequestId.random(), TTL).outcome());

            assertThat(results.subList(0, 2)).filteredOn(Boolean.TRUE::equals).hasSizeLessThanOrEqualTo(1);
            assertThat(results.subList(2, 6)).filteredOn(GateOutcome.HELD::equals).as("one seat came back")
                    .hasSize(1);
            GateView view = reservation().inspect(tenant, s).orElseThrow();
            assertThat(view.holders()).hasSize(2).extracting(GateHolder::studentId).contains(stays.get(round))
                    .doesNotContain(gone);
            assertThat(view.remaining()).isZero();
        }
    }

    // ---------------------------------------------------------------- reconcile

    @Test
    void reconcileCreatesAMissingSlotFromTheTruth() {
        Instant now = gateNow();
        GateHolder pinned = new GateHolder(Fixtures.student(), RequestId.random(), now.minusSeconds(30), null);
        GateHolder holding = new GateHolder(Fixtures.student(), RequestId.random(), now.minusSeconds(10),
                now.plus(TTL));
        GateHolder over = new GateHolder(Fixtures.student(), RequestId.random(), now.minusSeconds(10),
                now.minusSeconds(1));

        GateSync sync = reconcile(3, List.of(pinned, holding, over), Duration.ofMinutes(1));

        assertThat(sync).as("a holder the gate's clock sees expired is not added").isEqualTo(new GateSync(2, 0, true));
        GateView view = view();
        assertThat(view.capacity()).isEqualTo(3);
        assertThat(view.holders()).containsExactlyInAnyOrder(pinned, holding);
        assertThat(hold(pinned.studentId())).isEqualTo(GateDecision.duplicate(pinned.requestId()));
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.HELD);
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.FULL);
    }

    @Test
    void reconcileConvergesToTheTruthButLeavesInFlightHoldsAlone() {
        init(3);
        Duration grace = SHORT;
        StudentId stale = Fixtures.student();
        StudentId known = Fixtures.student();
        RequestId knownRequest = RequestId.random();
        assertThat(hold(stale)).isEqualTo(GateDecision.HELD);
        assertThat(hold(known, knownRequest)).isEqualTo(GateDecision.HELD);
        GateHolder knownHolder = view().holders().stream().filter(h -> h.studentId().equals(known)).findFirst()
                .orElseThrow();
        elapse(grace.plusMillis(10));
        StudentId inFlight = Fixtures.student();
        assertThat(hold(inFlight)).isEqualTo(GateDecision.HELD);
        Instant now = gateNow();
        GateHolder missing = new GateHolder(Fixtures.student(), RequestId.random(), now.minusSeconds(120), null);

        GateSync sync = reconcile(4, List.of(knownHolder, missing), grace);

        assertThat(sync).isEqualTo(new GateSync(1, 1, true));
        GateView view = view();
        assertThat(view.capacity()).isEqualTo(4);
        assertThat(view.holders()).extracting(GateHolder::studentId)
                .containsExactlyInAnyOrder(inFlight, known, missing.studentId());
        assertThat(view.holders()).contains(missing, knownHolder);

        assertThat(reconcile(4, List.of(knownHolder, missing), Duration.ofDays(1)))
                .as("nothing left to do").isEqualTo(new GateSync(0, 0, false));
        elapse(grace.plusMillis(10));
        assertThat(reconcile(4, List.of(knownHolder, missing), grace))
                .as("the in-flight hold is old now, and still unknown").isEqualTo(new GateSync(0, 1, false));
        assertThat(view().holders()).containsExactlyInAnyOrder(knownHolder, missing);
    }

    @Test
    void reconcileRemovesAHolderOfTheStudentUnderAnotherRequestOnlyWhenOld() {
        init(2);
        StudentId student = Fixtures.student();
        RequestId gateRequest = RequestId.random();
        assertThat(hold(student, gateRequest)).isEqualTo(GateDecision.HELD);
        GateHolder truth = new GateHolder(student, RequestId.random(), gateNow(), null);

        assertThat(reconcile(2, List.of(truth), Duration.ofDays(1))).as("the other request may be in flight")
                .isEqualTo(new GateSync(0, 0, false));
        assertThat(view().holders()).extracting(GateHolder::requestId).containsExactly(gateRequest);

        elapse(Duration.ofMillis(5));
        assertThat(reconcile(2, List.of(truth), Duration.ZERO)).isEqualTo(new GateSync(1, 1, false));
        assertThat(view().holders()).containsExactly(truth);
    }

    @Test
    void reconcilePinsConfirmedHoldersAndNeverShortensOrUnpins() {
        init(3);
        StudentId confirmed = Fixtures.student();
        RequestId confirmedRequest = RequestId.random();
        StudentId longHeld = Fixtures.student();
        RequestId longRequest = RequestId.random();
        StudentId pinnedInGate = Fixtures.student();
        RequestId pinnedRequest = RequestId.random();
        assertThat(hold(confirmed, confirmedRequest, SHORT)).isEqualTo(GateDecision.HELD);
        assertThat(hold(longHeld, longRequest, TTL)).isEqualTo(GateDecision.HELD);
        assertThat(hold(pinnedInGate, pinnedRequest, SHORT)).isEqualTo(GateDecision.HELD);
        reservation().confirm(tenant, slot, pinnedInGate, pinnedRequest);
        GateView before = view();
        GateHolder longBefore = holderOf(before, longHeld);
        Instant now = gateNow();

        List<GateHolder> truth = List.of(
                new GateHolder(confirmed, confirmedRequest, now, null),
                new GateHolder(longHeld, longRequest, now, now.plus(SHORT)),
                new GateHolder(pinnedInGate, pinnedRequest, now, now.plus(SHORT)));
        assertThat(reconcile(3, truth, Duration.ofDays(1))).as("expiry updates are not additions")
                .isEqualTo(new GateSync(0, 0, false));

        GateView after = view();
        assertThat(holderOf(after, confirmed).pinned()).isTrue();
        assertThat(holderOf(after, longHeld)).as("not shortened").isEqualTo(longBefore);
        assertThat(holderOf(after, pinnedInGate).pinned()).as("not un-pinned").isTrue();
        elapse(SHORT);
        assertThat(view().holders()).hasSize(3);
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.FULL);
    }

    @Test
    void reconcileExtendsAnExpiryToTheTruths() {
        init(1);
        StudentId student = Fixtures.student();
        RequestId request = RequestId.random();
        assertThat(hold(student, request, SHORT)).isEqualTo(GateDecision.HELD);
        Instant longer = gateNow().plus(TTL);

        assertThat(reconcile(1, List.of(new GateHolder(student, request, gateNow(), longer)), Duration.ofDays(1)))
                .isEqualTo(new GateSync(0, 0, false));

        assertThat(holderOf(view(), student).expiresAt()).isEqualTo(longer);
        elapse(SHORT);
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.FULL);
    }

    @Test
    void reconcileNeverAddsBackAReleasedRequest() {
        init(2);
        StudentId student = Fixtures.student();
        RequestId request = RequestId.random();
        assertThat(hold(student, request)).isEqualTo(GateDecision.HELD);
        // the ledger is read while the booking is live...
        List<GateHolder> truth = List.of(new GateHolder(student, request, gateNow(), gateNow().plus(TTL)));
        // ...then it is cancelled and its gate hold released, before the reconcile lands
        assertThat(reservation().release(tenant, slot, student, request)).isTrue();

        assertThat(reconcile(2, truth, Duration.ZERO)).isEqualTo(new GateSync(0, 0, false));
        assertThat(view().holders()).isEmpty();

        // the student held again under a new request, still in flight: kept, never replaced by the tombstoned one
        RequestId again = RequestId.random();
        assertThat(hold(student, again)).isEqualTo(GateDecision.HELD);
        assertThat(reconcile(2, truth, Duration.ofDays(1))).isEqualTo(new GateSync(0, 0, false));
        assertThat(view().holders()).extracting(GateHolder::requestId).containsExactly(again);
    }

    @Test
    void aTruthReadAfterTheReleaseAddsTheRequestBackAndOneThatMayPredateItDoesNot() {
        init(2);
        StudentId student = Fixtures.student();
        RequestId request = RequestId.random();
        assertThat(hold(student, request)).isEqualTo(GateDecision.HELD);
        // one delivery of the request was refused and gave the gate hold back...
        assertThat(reservation().release(tenant, slot, student, request)).isTrue();
        // ...while another delivery of the same request was granted: the ledger holds its booking
        List<GateHolder> truth = List.of(new GateHolder(student, request, gateNow(), gateNow().plus(TTL)));

        // a read that may have begun before the release keeps it out
        reservation().reconcile(tenant, slot, 2, null, truth, Duration.ofMinutes(1), Duration.ZERO, keepUntil);
        assertThat(view().holders()).isEmpty();
        // a read that began after the release adds it back
        elapse(Duration.ofMillis(50));
        assertThat(reservation().reconcile(tenant, slot, 2, null, truth, Duration.ofMillis(5), Duration.ZERO,
                keepUntil).added()).isEqualTo(1);
        assertThat(view().holders()).extracting(GateHolder::requestId).containsExactly(request);
    }

    @Test
    void aReleaseWhileTheSlotHasNoStateKeepsTheRebuildFromAddingIt() {
        // the slot's state is gone (evicted, or a server restarted empty); the ledger is read for the
        // rebuild while a booking is live; it is cancelled and its gate hold released before the rebuild
        StudentId student = Fixtures.student();
        RequestId request = RequestId.random();
        List<GateHolder> truth = List.of(new GateHolder(student, request, gateNow(), gateNow().plus(TTL)));

        assertThat(reservation().release(tenant, slot, student, request)).isFalse();
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.MISSING);

        reconcile(2, truth, Duration.ZERO);
        assertThat(view().holders()).isEmpty();
        assertThat(view().capacity()).isEqualTo(2);
    }

    @Test
    void aReleaseOfARequestTheGateNeverHeldStillKeepsReconcileFromAddingIt() {
        init(2);
        StudentId student = Fixtures.student();
        RequestId request = RequestId.random();
        List<GateHolder> truth = List.of(new GateHolder(student, request, gateNow(), gateNow().plus(TTL)));

        assertThat(reservation().release(tenant, slot, student, request)).isFalse();

        assertThat(reconcile(2, truth, Duration.ZERO)).isEqualTo(new GateSync(0, 0, false));
        assertThat(view().holders()).isEmpty();
    }

    @Test
    void reconcileLowersCapacityWithoutDroppingKnownHolders() {
        init(5);
        StudentId student = Fixtures.student();
        RequestId request = RequestId.random();
        assertThat(hold(student, request)).isEqualTo(GateDecision.HELD);
        GateHolder a = holderOf(view(), student);

        assertThat(reconcile(1, List.of(a), Duration.ZERO)).isEqualTo(new GateSync(0, 0, true));

        assertThat(view()).isEqualTo(new GateView(1, List.of(a)));
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.FULL);
    }

    // ---------------------------------------------------------------- close

    @Test
    void closeDropsTheHoldersAndKeepsTheSlotClosed() {
        init(2);
        StudentId student = Fixtures.student();
        RequestId request = RequestId.random();
        assertThat(hold(student, request)).isEqualTo(GateDecision.HELD);

        reservation().close(tenant, slot, keepUntil);

        assertThat(reservation().inspect(tenant, slot)).isEmpty();
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.CLOSED);
        assertThat(hold(student, request)).isEqualTo(GateDecision.CLOSED);
        assertThat(reservation().release(tenant, slot, student, request)).isFalse();
        reservation().initialize(tenant, slot, 2, keepUntil);
        assertThat(hold(Fixtures.student())).as("initialize does not reopen it").isEqualTo(GateDecision.CLOSED);
        GateHolder truth = new GateHolder(student, request, gateNow(), null);
        assertThat(reconcile(2, List.of(truth), Duration.ZERO)).as("reconcile does not resurrect it")
                .isEqualTo(new GateSync(0, 0, false));
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.CLOSED);
        assertThat(reservation().inspect(tenant, slot)).isEmpty();
        reservation().close(tenant, slot, keepUntil);
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.CLOSED);
    }

    @Test
    void closingASlotWithoutStateStillMarksItClosed() {
        reservation().close(tenant, slot, keepUntil);

        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.CLOSED);
        reservation().initialize(tenant, slot, 2, keepUntil);
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.CLOSED);
    }

    @Test
    void theClosedMarkerLastsUntilKeepUntil() {
        init(1);
        reservation().close(tenant, slot, gateNow().plus(SHORT));
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.CLOSED);

        elapse(SHORT);

        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.MISSING);
        init(1);
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.HELD);
    }

    // ---------------------------------------------------------------- isolation

    @Test
    void differentTenantSlotPairsNeverShareState() {
        String r = Fixtures.shortRandom();
        List<TenantId> tenants = List.of(TenantId.of(r + ":a"), TenantId.of(r + ":a:b"), TenantId.of(r + "{a}"),
                TenantId.of(r + "{a"), TenantId.of(r + "%"), TenantId.of(r + "%a"), TenantId.of(r + "}"));
        List<SlotId> slots = List.of(SlotId.of("b:c"), SlotId.of("c"), SlotId.of("b"), SlotId.of("}b"),
                SlotId.of("ab"), SlotId.of("b%"), SlotId.of("{x}:y"));
        List<RequestId> requests = new ArrayList<>();
        for (int i = 0; i < tenants.size(); i++) {
            for (int j = 0; j < slots.size(); j++) {
                reservation().initialize(tenants.get(i), slots.get(j), 1 + i * slots.size() + j, keepUntil);
            }
        }
        for (int i = 0; i < tenants.size(); i++) {
            for (int j = 0; j < slots.size(); j++) {
                StudentId s = StudentId.of("same-student");
                RequestId req = RequestId.of("req-" + i + "-" + j);
                assertThat(reservation().tryHold(tenants.get(i), slots.get(j), s, req, TTL))
                        .isEqualTo(GateDecision.HELD);
                requests.add(req);
            }
        }

        for (int i = 0; i < tenants.size(); i++) {
            for (int j = 0; j < slots.size(); j++) {
                GateView view = reservation().inspect(tenants.get(i), slots.get(j)).orElseThrow();
                assertThat(view.capacity()).as("%s / %s", tenants.get(i), slots.get(j))
                        .isEqualTo(1 + i * slots.size() + j);
                assertThat(view.holders()).extracting(GateHolder::requestId)
                        .containsExactly(requests.get(i * slots.size() + j));
            }
        }
        reservation().close(tenants.get(0), slots.get(0), keepUntil);
        assertThat(reservation().inspect(tenants.get(0), slots.get(0))).isEmpty();
        assertThat(reservation().inspect(tenants.get(1), slots.get(1))).isPresent();
        assertThat(reservation().inspect(tenants.get(0), slots.get(1))).isPresent();
        assertThat(reservation().inspect(tenants.get(1), slots.get(0))).isPresent();
        assertThat(reservation().inspect(tenant, slots.get(0))).as("another tenant, same slot id").isEmpty();
    }

    // ---------------------------------------------------------------- helpers

    /**
     * A backend's check of how it stores the slot's holders against what {@code inspect} shows, run by
     * tests that leave only live holders behind (none expired); nothing by default.
     */
    protected void checkStoredHolders(TenantId tenantId, SlotId slotId, GateView view) {
    }

    protected void init(int capacity) {
        reservation().initialize(tenant, slot, capacity, keepUntil);
    }

    protected GateDecision hold(StudentId student) {
        return hold(student, RequestId.random());
    }

    protected GateDecision hold(StudentId student, RequestId request) {
        return hold(student, request, TTL);
    }

    protected GateDecision hold(StudentId student, RequestId request, Duration ttl) {
        return reservation().tryHold(tenant, slot, student, request, ttl);
    }

    protected GateSync reconcile(int capacity, List<GateHolder> truth, Duration inFlightGrace) {
        return reservation().reconcile(tenant, slot, capacity, truth, inFlightGrace, keepUntil);
    }

    protected GateView view() {
        return reservation().inspect(tenant, slot)
                .orElseThrow(() -> new AssertionError("the gate has no state for " + tenant + "/" + slot));
    }

    protected static GateHolder holderOf(GateView view, StudentId student) {
        return view.holders().stream().filter(h -> h.studentId().equals(student)).findFirst()
                .orElseThrow(() -> new AssertionError(student + " holds nothing in " + view));
    }
}
