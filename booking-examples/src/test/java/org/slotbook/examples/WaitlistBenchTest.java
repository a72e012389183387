package org.slotbook.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The waitlisted hot-slot line runs, promotes one waiter per cancel, in order, and SQL finds nothing wrong;
 * then it deletes its rows.
 */
class WaitlistBenchTest {

    @Test
    void aSmallRunPromotesInOrderWithNothingOversold() throws Exception {
        String h2 = "jdbc:h2:mem:waitlist-bench-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        WaitlistBench.Report report = WaitlistBench.run(WaitlistBench.Options.parse("--jdbc", h2, "--no-redis",
                "--students", "400", "--seats", "5", "--waiters", "40", "--cancels", "20", "--threads", "8"),
                new PrintStream(out, true, StandardCharsets.UTF_8));
        System.out.print(out.toString(StandardCharsets.UTF_8));
        assertThat(report.held()).isEqualTo(5);
        assertThat(report.waitlisted()).isBetween(35, 40);
        assertThat(report.cancels()).isEqualTo(20);
        assertThat(report.promoted()).as("one promotion per cancel").isEqualTo(20);
        assertThat(report.clean()).as("%s", report).isTrue();
        // checked, then deleted: the run leaves no row behind
        assertThat(RowsLeft.all(h2)).isZero();
    }
}
