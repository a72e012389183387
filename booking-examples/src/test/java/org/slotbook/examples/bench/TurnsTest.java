package org.slotbook.examples.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/** A line measured in turns counts each request once, and its turns add up to one line's figures. */
class TurnsTest {

    @Test
    void aTurnRunsExactlyItsRangeOfRequests() throws Exception {
        Set<Integer> seen = ConcurrentHashMap.newKeySet();
        Measured m = LoadDriver.threads(3).requests(5, 9, (thread, i) -> seen.add(i) && i % 2 == 0);
        assertThat(seen).containsExactlyInAnyOrder(5, 6, 7, 8);
        assertThat(m.decisions()).isEqualTo(4);
        assertThat(m.holds()).isEqualTo(2);
        assertThat(LoadDriver.threads(2).requests(7, 7, (thread, i) -> true).decisions()).isZero();
        assertThatThrownBy(() -> LoadDriver.threads(1).requests(3, 2, (thread, i) -> true))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3 to 2");
    }

    @Test
    void turnsAddUpTheirCountsTimesAndLatencies() throws Exception {
        Measured first = LoadDriver.threads(2).requests(0, 10, (thread, i) -> {
            Thread.sleep(2);
            return i < 3;
        });
        Measured second = LoadDriver.threads(2).requests(10, 16, (thread, i) -> {
            if (i == 12) {
                throw new IllegalStateException("request 12");
            }
            Thread.sleep(20);
            return true;
        });
        Measured all = Measured.sum(List.of(first, second));
        assertThat(all.decisions()).isEqualTo(15);
        assertThat(all.holds()).isEqualTo(3 + 5);
        assertThat(all.errors()).isEqualTo(1);
        assertThat(all.firstError()).hasMessage("request 12");
        assertThat(all.duration()).isEqualTo(first.duration().plus(second.duration()));
        assertThat(all.latencies().maxMillis()).isEqualTo(second.latencies().maxMillis()).isGreaterThanOrEqualTo(20);
        assertThat(all.latencies().percentileMillis(50)).isLessThan(all.latencies().percentileMillis(99));
    }
}
