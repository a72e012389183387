package org.slotbook.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The sharded flash-sale line with tiny numbers on two H2 databases: no seat oversold on either shard. No timing is asserted. */
class ShardBenchTest {

    @Test
    void oneAndTwoShardLinesSellEveryTenantsSeatsAndNoMore() throws Exception {
        String a = "jdbc:h2:mem:shard-a-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        String b = "jdbc:h2:mem:shard-b-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ShardBench.Report report = ShardBench.run(ShardBench.Options.parse("--jdbc", a, "--jdbc2", b, "--tenants", "6",
                "--seats", "4", "--students", "60", "--threads", "4", "--no-warmup"),
                new PrintStream(out, true, StandardCharsets.UTF_8));
        System.out.print(out.toString(StandardCharsets.UTF_8));

        assertThat(report.lines()).extracting(ShardBench.Line::shards).containsExactly(1, 2, 1);
        assertThat(report.lines()).allSatisfy(line -> {
            assertThat(line.oversold()).isZero();
            assertThat(line.errors()).isZero();
            assertThat(line.holds()).as("6 tenants x 4 seats sold").isEqualTo(24);
            assertThat(line.full()).isEqualTo(36);
        });
        assertThat(report.factor()).isPositive();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("scaling factor, 2 shards over 1");
        // each line deleted its tenants' rows once counted
        for (String shard : new String[] {a, b}) {
            assertThat(RowsLeft.all(shard)).as("rows left on %s", shard).isZero();
        }
    }

    @Test
    void bothShardsAreRequired() {
        assertThatThrownBy(() -> ShardBench.Options.parse("--jdbc", "jdbc:h2:mem:x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--jdbc2");
        assertThatThrownBy(() -> ShardBench.Options.parse("--tenants", "0"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--tenants");
    }
}
