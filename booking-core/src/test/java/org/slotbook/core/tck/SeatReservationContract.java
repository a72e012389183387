package org.slotbook.core.tck;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
import org.slotbook.core.spi.GateOutcome;
import org.slotbook.core.spi.GateSync;
import org.slotbook.core.spi.GateView;
import org.slotbook.core.spi.SeatReservation;

/**
 * What every {@link SeatReservation} (gate) must do. Each test uses a fresh tenant and slot, so one
 * gate (one server) may serve every test and run. Instants are kept at millisecond precision and
 * near the real current time, since a gate may expire a whole slot by its own clock
 * ({@code keepUntil}); these tests keep every slot for two days.
 */
public abstract class SeatReservationContract {
    /** How long the holds of these tests last. */
    protected static final Duration TTL = Duration.ofMinutes(10);

    // Fresh for every test, also when a subclass shares one instance across tests (PER_CLASS).
    protected TenantId tenant;
    protected SlotId slot;
    protected Instant now;
    protected Instant keepUntil;

    @BeforeEach
    void freshTenant() {
        tenant = Fixtures.tenant();
        slot = Fixtures.slot();
        now = new MutableClock().instant();
        keepUntil = now.plus(Duration.ofDays(2));
    }

    protected abstract SeatReservation reservation();

    // ---------------------------------------------------------------- holding

    @Test
    void aSlotThatWasNeverInitializedIsMissing() {
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.MISSING);
        assertThat(reservation().inspect(tenant, slot, now)).isEmpty();
        assertThat(reservation().release(tenant, slot, Fixtures.student())).isFalse();
        reservation().confirm(tenant, slot, Fixtures.student());
        assertThat(reservation().inspect(tenant, slot, now)).as("confirm creates nothing").isEmpty();
    }

    @Test
    void holdsUpToCapacityThenFull() {
        init(3);
        List<GateHolder> expected = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            StudentId s = Fixtures.student();
            RequestId r = RequestId.random();
            assertThat(hold(s, r, now, now.plus(TTL))).isEqualTo(GateDecision.HELD);
            expected.add(new GateHolder(s, r, now, now.plus(TTL)));
        }

        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.FULL);
        GateView view = view(now);
        assertThat(view.capacity()).isEqualTo(3);
        assertThat(view.remaining()).isZero();
        assertThat(view.holders()).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void theSameStudentAgainIsADuplicateUnderTheOriginalRequestId() {
        init(2);
        StudentId student = Fixtures.student();
        RequestId original = RequestId.random();
        assertThat(hold(student, original, now, now.plus(TTL))).isEqualTo(GateDecision.HELD);

        assertThat(hold(student, RequestId.random(), now, now.plus(TTL))).isEqualTo(GateDecision.duplicate(original));
        assertThat(hold(student, original, now, now.plus(TTL))).isEqualTo(GateDecision.duplicate(original));
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.HELD);
        assertThat(hold(student, RequestId.random(), now, now.plus(TTL))).as("full, but the student holds")
                .isEqualTo(GateDecision.duplicate(original));
        assertThat(view(now).holders()).hasSize(2);
    }

    @Test
    void initializeNeverOverwrites() {
        init(1);
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.HELD);

        reservation().initialize(tenant, slot, 5, keepUntil);

        assertThat(view(now).capacity()).isEqualTo(1);
        assertThat(view(now).remaining()).isZero();
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.FULL);
    }

    @Test
    void releaseIsIdempotentAndGivesTheSeatBack() {
        init(1);
        StudentId student = Fixtures.student();
        assertThat(hold(student)).isEqualTo(GateDecision.HELD);

        assertThat(reservation().release(tenant, slot, student)).isTrue();
        assertThat(reservation().release(tenant, slot, student)).isFalse();
        assertThat(reservation().release(tenant, slot, Fixtures.student())).as("never held").isFalse();
        assertThat(view(now).remaining()).isEqualTo(1);
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.HELD);
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.FULL);
    }

    @Test
    void confirmPinsTheHolder() {
        init(1);
        StudentId student = Fixtures.student();
        RequestId request = RequestId.random();
        Instant expiry = now.plus(Duration.ofMinutes(1));
        assertThat(hold(student, request, now, expiry)).isEqualTo(GateDecision.HELD);

        reservation().confirm(tenant, slot, student);
        reservation().confirm(tenant, slot, student);
        reservation().confirm(tenant, slot, Fixtures.student());

        Instant later = expiry.plus(Duration.ofHours(1));
        assertThat(hold(Fixtures.student(), RequestId.random(), later, later.plus(TTL)))
                .isEqualTo(GateDecision.FULL);
        assertThat(view(later).holders()).containsExactly(new GateHolder(student, request, now, null));
        assertThat(reservation().release(tenant, slot, student)).isTrue();
        assertThat(view(later).remaining()).isEqualTo(1);
    }

    @Test
    void expiredHoldersAreReclaimedByTheNextHold() {
        init(1);
        StudentId first = Fixtures.student();
        Instant expiry = now.plus(Duration.ofMinutes(1));
        assertThat(hold(first, RequestId.random(), now, expiry)).isEqualTo(GateDecision.HELD);

        Instant justBefore = expiry.minusMillis(1);
        assertThat(hold(Fixtures.student(), RequestId.random(), justBefore, justBefore.plus(TTL)))
                .isEqualTo(GateDecision.FULL);
        assertThat(view(justBefore).holders()).extracting(GateHolder::studentId).containsExactly(first);
        assertThat(view(expiry).holders()).as("expiresAt <= now is not live").isEmpty();
        assertThat(view(expiry).remaining()).isEqualTo(1);

        StudentId second = Fixtures.student();
        assertThat(hold(second, RequestId.random(), expiry, expiry.plus(TTL))).isEqualTo(GateDecision.HELD);
        assertThat(view(expiry).holders()).extracting(GateHolder::studentId).containsExactly(second);
        assertThat(hold(first, RequestId.random(), expiry, expiry.plus(TTL))).as("first's hold is gone")
                .isEqualTo(GateDecision.FULL);
    }

    @Test
    void aStudentWhoseHoldExpiredMayHoldAgain() {
        init(2);
        StudentId student = Fixtures.student();
        Instant expiry = now.plus(Duration.ofMinutes(1));
        assertThat(hold(student, RequestId.random(), now, expiry)).isEqualTo(GateDecision.HELD);

        RequestId again = RequestId.random();
        assertThat(hold(student, again, expiry, expiry.plus(TTL))).isEqualTo(GateDecision.HELD);
        assertThat(view(expiry).holders()).extracting(GateHolder::requestId).containsExactly(again);
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
        GateView view = view(now);
        assertThat(view.holders()).hasSize(capacity);
        assertThat(view.holders()).extracting(GateHolder::studentId).containsExactlyInAnyOrderElementsOf(held);
        assertThat(view.remaining()).isZero();
    }

    @Test
    void aReleaseRacingTheReclaimOfTheSameHolderGivesTheSeatBackOnce() {
        for (int round = 0; round < 10; round++) {
            SlotId raced = Fixtures.slot();
            reservation().initialize(tenant, raced, 2, keepUntil);
            StudentId stays = Fixtures.student();
            StudentId expiring = Fixtures.student();
            Instant expiry = now.plus(Duration.ofMinutes(1));
            assertThat(reservation().tryHold(tenant, raced, stays, RequestId.random(), now, now.plus(TTL)))
                    .isEqualTo(GateDecision.HELD);
            assertThat(reservation().tryHold(tenant, raced, expiring, RequestId.random(), now, expiry))
                    .isEqualTo(GateDecision.HELD);

            List<Object> results = Concurrent.run(6, i -> i < 2
                    ? (Object) reservation().release(tenant, raced, expiring)
                    : reservation().tryHold(tenant, raced, Fixtures.student(), RequestId.random(), expiry,
                            expiry.plus(TTL)).outcome());

            assertThat(results.subList(0, 2)).filteredOn(Boolean.TRUE::equals).hasSizeLessThanOrEqualTo(1);
            assertThat(results.subList(2, 6)).filteredOn(GateOutcome.HELD::equals).as("one seat came back")
                    .hasSize(1);
            GateView view = reservation().inspect(tenant, raced, expiry).orElseThrow();
            assertThat(view.holders()).hasSize(2).extracting(GateHolder::studentId).contains(stays)
                    .doesNotContain(expiring);
            assertThat(view.remaining()).isZero();
        }
    }

    // ---------------------------------------------------------------- reconcile, clear

    @Test
    void reconcileCreatesAMissingSlotFromTheTruth() {
        GateHolder pinned = new GateHolder(Fixtures.student(), RequestId.random(), now.minusSeconds(30), null);
        GateHolder holding = new GateHolder(Fixtures.student(), RequestId.random(), now.minusSeconds(10),
                now.plus(TTL));

        GateSync sync = reservation().reconcile(tenant, slot, 3, List.of(pinned, holding), now, now.minusSeconds(60),
                keepUntil);

        assertThat(sync).isEqualTo(new GateSync(2, 0, true));
        GateView view = view(now);
        assertThat(view.capacity()).isEqualTo(3);
        assertThat(view.holders()).containsExactlyInAnyOrder(pinned, holding);
        assertThat(hold(pinned.studentId())).isEqualTo(GateDecision.duplicate(pinned.requestId()));
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.HELD);
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.FULL);
    }

    @Test
    void reconcileConvergesToTheTruthButLeavesInFlightHoldsAlone() {
        init(3);
        Instant cutoff = now.minus(Duration.ofMinutes(1));
        StudentId stale = Fixtures.student();
        StudentId inFlight = Fixtures.student();
        StudentId known = Fixtures.student();
        RequestId knownRequest = RequestId.random();
        assertThat(hold(stale, RequestId.random(), now.minus(Duration.ofMinutes(5)), now.plus(TTL)))
                .isEqualTo(GateDecision.HELD);
        assertThat(hold(inFlight, RequestId.random(), now, now.plus(TTL))).isEqualTo(GateDecision.HELD);
        assertThat(hold(known, knownRequest, now.minus(Duration.ofMinutes(3)), now.plus(TTL)))
                .isEqualTo(GateDecision.HELD);
        GateHolder knownHolder = new GateHolder(known, knownRequest, now.minus(Duration.ofMinutes(3)), now.plus(TTL));
        GateHolder missing = new GateHolder(Fixtures.student(), RequestId.random(), now.minus(Duration.ofMinutes(2)),
                null);

        GateSync sync = reservation().reconcile(tenant, slot, 4, List.of(knownHolder, missing), now, cutoff,
                keepUntil);

        assertThat(sync).isEqualTo(new GateSync(1, 1, true));
        GateView view = view(now);
        assertThat(view.capacity()).isEqualTo(4);
        assertThat(view.holders()).extracting(GateHolder::studentId)
                .containsExactlyInAnyOrder(inFlight, known, missing.studentId());
        assertThat(view.holders()).contains(missing, knownHolder);

        assertThat(reservation().reconcile(tenant, slot, 4, List.of(knownHolder, missing), now, cutoff, keepUntil))
                .as("nothing left to do").isEqualTo(new GateSync(0, 0, false));
        Instant muchLater = now.plus(Duration.ofMinutes(2));
        assertThat(reservation().reconcile(tenant, slot, 4, List.of(knownHolder, missing), muchLater,
                muchLater.minus(Duration.ofMinutes(1)), keepUntil))
                .as("the in-flight hold is old now, and still unknown").isEqualTo(new GateSync(0, 1, false));
        assertThat(view(muchLater).holders()).containsExactlyInAnyOrder(knownHolder, missing);
    }

    @Test
    void reconcileGivesAHolderTheTruthsExpiry() {
        init(2);
        StudentId confirmed = Fixtures.student();
        RequestId request = RequestId.random();
        Instant expiry = now.plus(Duration.ofMinutes(1));
        assertThat(hold(confirmed, request, now, expiry)).isEqualTo(GateDecision.HELD);
        GateHolder pinned = new GateHolder(confirmed, request, now, null);

        assertThat(reservation().reconcile(tenant, slot, 2, List.of(pinned), now, now.minusSeconds(60), keepUntil))
                .as("an expiry update is not an addition").isEqualTo(new GateSync(0, 0, false));

        Instant later = expiry.plus(Duration.ofHours(1));
        assertThat(view(later).holders()).containsExactly(pinned);
        assertThat(hold(Fixtures.student(), RequestId.random(), later, later.plus(TTL))).isEqualTo(GateDecision.HELD);
        assertThat(hold(Fixtures.student(), RequestId.random(), later, later.plus(TTL))).isEqualTo(GateDecision.FULL);
    }

    @Test
    void reconcileLowersCapacityWithoutDroppingKnownHolders() {
        init(5);
        GateHolder a = new GateHolder(Fixtures.student(), RequestId.random(), now, now.plus(TTL));
        assertThat(hold(a.studentId(), a.requestId(), now, now.plus(TTL))).isEqualTo(GateDecision.HELD);

        assertThat(reservation().reconcile(tenant, slot, 1, List.of(a), now, now.minusSeconds(60), keepUntil))
                .isEqualTo(new GateSync(0, 0, true));

        assertThat(view(now)).isEqualTo(new GateView(1, List.of(a)));
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.FULL);
    }

    @Test
    void clearDropsTheSlot() {
        init(2);
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.HELD);

        reservation().clear(tenant, slot);

        assertThat(reservation().inspect(tenant, slot, now)).isEmpty();
        assertThat(hold(Fixtures.student())).isEqualTo(GateDecision.MISSING);
        reservation().clear(tenant, slot);
        init(2);
        assertThat(view(now)).isEqualTo(new GateView(2, List.of()));
    }

    // ---------------------------------------------------------------- isolation

    @Test
    void differentTenantSlotPairsNeverShareState() {
        String r = Fixtures.shortRandom();
        List<TenantId> tenants = List.of(TenantId.of(r + ":a"), TenantId.of(r + ":a:b"), TenantId.of(r + "{a}"),
                TenantId.of(r + "{a"), TenantId.of(r + "%"), TenantId.of(r + "%a"), TenantId.of(r + "}"));
        List<SlotId> slots = List.of(SlotId.of("b:c"), SlotId.of("c"), SlotId.of("b"), SlotId.of("}b"),
                SlotId.of("ab"), SlotId.of("b%"), SlotId.of("{x}:y"));
        List<StudentId> students = new ArrayList<>();
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
                assertThat(reservation().tryHold(tenants.get(i), slots.get(j), s, req, now, now.plus(TTL)))
                        .isEqualTo(GateDecision.HELD);
                students.add(s);
                requests.add(req);
            }
        }

        for (int i = 0; i < tenants.size(); i++) {
            for (int j = 0; j < slots.size(); j++) {
                GateView view = reservation().inspect(tenants.get(i), slots.get(j), now).orElseThrow();
                assertThat(view.capacity()).as("%s / %s", tenants.get(i), slots.get(j))
                        .isEqualTo(1 + i * slots.size() + j);
                assertThat(view.holders()).extracting(GateHolder::requestId)
                        .containsExactly(requests.get(i * slots.size() + j));
            }
        }
        reservation().clear(tenants.get(0), slots.get(0));
        assertThat(reservation().inspect(tenants.get(0), slots.get(0), now)).isEmpty();
        assertThat(reservation().inspect(tenants.get(1), slots.get(1), now)).isPresent();
        assertThat(reservation().inspect(tenants.get(0), slots.get(1), now)).isPresent();
        assertThat(reservation().inspect(tenants.get(1), slots.get(0), now)).isPresent();
        assertThat(reservation().inspect(tenant, slots.get(0), now)).as("another tenant, same slot id").isEmpty();
    }

    // ---------------------------------------------------------------- helpers

    protected void init(int capacity) {
        reservation().initialize(tenant, slot, capacity, keepUntil);
    }

    protected GateDecision hold(StudentId student) {
        return hold(student, RequestId.random(), now, now.plus(TTL));
    }

    protected GateDecision hold(StudentId student, RequestId request, Instant at, Instant expiresAt) {
        return reservation().tryHold(tenant, slot, student, request, at, expiresAt);
    }

    protected GateView view(Instant at) {
        return reservation().inspect(tenant, slot, at)
                .orElseThrow(() -> new AssertionError("the gate has no state for " + tenant + "/" + slot));
    }
}
