package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CoachId;
import org.slotbook.core.Held;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.PackageGrant;
import org.slotbook.core.PackageId;
import org.slotbook.core.ReconciliationJob;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.Slot;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.core.memory.InMemoryStore;
import org.slotbook.core.shard.ShardMapping;
import org.slotbook.core.shard.TenantRoutedStore;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.tck.Fixtures;
import org.slotbook.core.tck.MutableClock;
import org.slotbook.jdbc.testing.TestDatabases;
import org.slotbook.jdbc.testing.TestDatabases.TestDatabase;

/**
 * One order of ids everywhere: Unicode code point. Ids with a character above U+FFFF (an emoji, a
 * mathematical letter) sort after ids with a character in U+E000..U+FFFF by code point, but before them
 * by UTF-16 code unit ({@link String#compareTo}). Every backend (in memory, H2, PostgreSQL, MariaDB)
 * pages its tenants and slots by code point, and a {@link TenantRoutedStore} whose shards are one of
 * each lists and sweeps every tenant. The expected order is computed here from the ids' UTF-8 bytes,
 * compared unsigned (which is code point order), not from the code under test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CodePointOrderTest {
    /** Characters whose UTF-16 order differs from their code point order, and plain ones around them. */
    private static final List<String> MARKS = List.of("\uD83D\uDE00", "\uE000", "\uD835\uDC00", "\uFB01",
            "\uFFE8", "z", "\u00E9", "\uD83D\uDE00\uE000", "\uE000\uD83D\uDE00");
    private static final Comparator<String> UTF8_BYTES = (a, b) -> Arrays.compareUnsigned(
            a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));

    private final Map<String, TestDatabase> databases = new LinkedHashMap<>();
    private final Map<String, BookingStore> stores = new LinkedHashMap<>();

    @BeforeAll
    void openBackends() {
        stores.put("in-memory", InMemoryStore.create());
        open("H2", TestDatabases.h2());
        open("PostgreSQL", TestDatabases.postgres());
        open("MariaDB", TestDatabases.mariadb());
    }

    private void open(String name, TestDatabase db) {
        databases.put(name, db);
        stores.put(name, db.store());
    }

    @AfterAll
    void closeBackends() {
        databases.values().forEach(TestDatabase::close);
    }

    private final MutableClock clock = new MutableClock();
    private final Instant start = clock.instant().truncatedTo(ChronoUnit.HOURS).plus(Duration.ofDays(1));

    private static List<String> codePointOrder(List<String> ids) {
        List<String> sorted = new ArrayList<>(ids);
        sorted.sort(UTF8_BYTES);
        return sorted;
    }

    private void schedule(BookingEngine engine, TenantId tenant, SlotId slot) {
        engine.schedule(tenant, new SlotSpec(slot, CoachId.of("c-" + slot.value()), RoomId.of("r-" + slot.value()),
                TimeRange.of(start, Duration.ofHours(1)), 2));
    }

    @Test
    void everyBackendPagesItsTenantsAndSlotsInCodePointOrder() {
        String run = "cp-" + Fixtures.shortRandom() + "-";
        List<String> tenantIds = MARKS.stream().map(m -> run + m).toList();
        List<String> slotIds = MARKS.stream().map(m -> "s" + m).toList();
        List<String> expectedTenants = codePointOrder(tenantIds);
        List<String> expectedSlots = codePointOrder(slotIds);
        assertThat(expectedTenants).as("the case at hand: UTF-16 order differs").isNotEqualTo(
                tenantIds.stream().sorted().toList());
        for (Map.Entry<String, BookingStore> backend : stores.entrySet()) {
            BookingStore store = backend.getValue();
            BookingEngine engine = BookingEngine.builder().store(store).clock(clock).build();
            for (String tenant : tenantIds) {
                schedule(engine, TenantId.of(tenant), SlotId.of("s"));
            }
            TenantId first = TenantId.of(tenantIds.get(0));
            for (String slot : slotIds) {
                schedule(engine, first, SlotId.of(slot));
            }
            // a student's packages with one expiry, listed in payer order: by id, in code point order
            StudentId student = StudentId.of("payer");
            List<String> packageIds = MARKS.stream().map(m -> "p" + m).toList();
            for (String id : packageIds) {
                engine.grantPackage(first, PackageGrant.of(PackageId.of(id), student, 1, start.minus(Duration.ofDays(9)),
                        start.plus(Duration.ofDays(9))));
            }
            assertThat(engine.packages(first, student, 0, 100).stream().map(p -> p.packageId().value()))
                    .as("%s: packages in payer order", backend.getKey())
                    .containsExactlyElementsOf(codePointOrder(packageIds));
            for (int page : new int[] {1, 2, 100}) {
                assertThat(pageTenants(store, run, page)).as("%s: tenants by pages of %d", backend.getKey(), page)
                        .containsExactlyElementsOf(expectedTenants);
                List<String> slots = new ArrayList<>();
                SlotId after = null;
                while (true) {
                    List<Slot> batch = store.slots(first, after, page);
                    batch.forEach(s -> slots.add(s.slotId().value()));
                    if (batch.size() < page) {
                        break;
                    }
                    after = batch.get(batch.size() - 1).slotId();
                }
                assertThat(slots).as("%s: slots by pages of %d", backend.getKey(), page)
                        .containsExactlyElementsOf(codePointOrder(concat(expectedSlots, "s")));
            }
        }
    }

    /**
     * This run's tenants, read page by page of {@code page} from {@code store}; paging in an order the
     * store does not page by can go back and loop, so the pages are bounded.
     */
    private static List<String> pageTenants(BookingStore store, String run, int page) {
        List<String> seen = new ArrayList<>();
        TenantId after = null;
        for (int pages = 1; ; pages++) {
            assertThat(pages).as("pages read before the end (the first ids seen: %s)",
                    seen.subList(0, Math.min(12, seen.size()))).isLessThan(1_000);
            List<TenantId> batch = store.tenants(after, page);
            batch.stream().map(TenantId::value).filter(t -> t.startsWith(run)).forEach(seen::add);
            if (batch.size() < page) {
                return seen;
            }
            after = batch.get(batch.size() - 1);
        }
    }

    private static List<String> concat(List<String> ids, String more) {
        List<String> all = new ArrayList<>(ids);
        all.add(more);
        return all;
    }

    /**
     * Shards on four backends, the ids of neighbouring tenants (in either order) on different shards:
     * the routed store lists every tenant once, by pages of one, and the upkeep sweeps the expired hold
     * of every tenant, read back from each shard's tables.
     */
    @Test
    void acrossShardsOfEveryBackendEveryTenantIsListedAndSwept() {
        String run = "cq-" + Fixtures.shortRandom() + "-";
        List<String> shardNames = new ArrayList<>(stores.keySet());
        Map<TenantId, String> table = new LinkedHashMap<>();
        TenantRoutedStore.Builder builder = TenantRoutedStore.builder();
        stores.forEach(builder::shard);
        List<String> tenantIds = new ArrayList<>();
        for (int i = 0; i < MARKS.size(); i++) {
            String id = run + MARKS.get(i);
            tenantIds.add(id);
            table.put(TenantId.of(id), shardNames.get(i % shardNames.size()));
        }
        TenantRoutedStore routed = builder.mapping(ShardMapping.table(table, t -> shardNames.get(0))).build();
        BookingEngine engine = BookingEngine.builder().store(routed).clock(clock)
                .holdPolicy(HoldPolicy.ofDefaults()).build();
        SlotId slot = SlotId.of("pilates");
        List<Booking> dying = new ArrayList<>();
        for (String id : tenantIds) {
            TenantId tenant = TenantId.of(id);
            schedule(engine, tenant, slot);
            dying.add(((Held) engine.hold(tenant, HoldRequest.of(RequestId.random(), slot,
                    StudentId.of("st-" + Fixtures.shortRandom())))).booking());
        }
        clock.advance(HoldPolicy.ofDefaults().holdTtl().plusMinutes(1));

        for (int page : new int[] {1, 2, 3}) {
            assertThat(pageTenants(routed, run, page)).as("every tenant, by pages of %d", page)
                    .containsExactlyElementsOf(codePointOrder(tenantIds));
        }
        ReconciliationJob.Run swept = ReconciliationJob.builder(engine).tenantPage(1).build().runOnce().orElseThrow();

        assertThat(swept.failedTenants()).isZero();
        int expiredInTables = 0;
        for (Booking b : dying) {
            String shard = table.get(b.tenantId());
            TestDatabase db = databases.get(shard);
            if (db != null) {
                expiredInTables += db.count("SELECT COUNT(*) FROM " + db.table("booking")
                        + " WHERE tenant_id = ? AND booking_id = ? AND status = 'EXPIRED'",
                        b.tenantId().value(), b.bookingId().value());
            } else if (stores.get(shard).findBooking(b.tenantId(), b.bookingId()).orElseThrow().status()
                    == BookingStatus.EXPIRED) {
                expiredInTables++;
            }
        }
        assertThat(expiredInTables).as("holds swept of %d tenants", dying.size()).isEqualTo(dying.size());
    }
}
