package org.slotbook.core.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slotbook.core.PackageGrant;
import org.slotbook.core.PackageId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.memory.InMemoryStore;
import org.slotbook.core.spi.BookingStore;
import org.slotbook.core.spi.ForwardingStore;
import org.slotbook.core.tck.Fixtures;

/** The stores that pass calls on pass on every call of {@link BookingStore}, none left to a default. */
class DelegatingStoresTest {

    @ParameterizedTest
    @ValueSource(classes = {ForwardingStore.class, TenantRoutedStore.class})
    void everyCallOfTheStoreIsPassedOn(Class<?> type) throws NoSuchMethodException {
        for (Method call : BookingStore.class.getMethods()) {
            if (Modifier.isStatic(call.getModifiers())) {
                continue;
            }
            Method own = type.getMethod(call.getName(), call.getParameterTypes());
            assertThat(own.getDeclaringClass()).as("%s", call).isEqualTo(type);
        }
    }

    @Test
    void aPackageLivesOnTheShardOfItsTenant() {
        TenantRoutedStore routed = TenantRoutedStore.builder()
                .shard("a", InMemoryStore.create())
                .shard("b", InMemoryStore.create())
                .build();
        TenantId tenant = Fixtures.tenant();
        StudentId student = Fixtures.student();
        Instant now = Instant.now().truncatedTo(ChronoUnit.MICROS);
        PackageGrant grant = PackageGrant.of(PackageId.of("p-" + Fixtures.shortRandom()), student, 3, now,
                now.plus(Duration.ofDays(30)));

        routed.grantPackage(tenant, grant, now);

        String home = routed.shardOf(tenant);
        for (String shard : routed.shardNames()) {
            assertThat(routed.shard(shard).packages(tenant, student, 0, 10)).hasSize(shard.equals(home) ? 1 : 0);
        }
        assertThat(routed.creditJournal(tenant, grant.packageId(), 0, 10)).singleElement()
                .satisfies(e -> assertThat(e.delta()).isEqualTo(3));
    }
}
