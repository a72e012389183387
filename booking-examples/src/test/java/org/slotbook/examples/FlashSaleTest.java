package org.slotbook.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A small flash sale on each backend combination: zero oversell, counted from the database. */
class FlashSaleTest {

    private static FlashSale.Summary sale(String... args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        FlashSale.Summary summary = FlashSale.run(FlashSale.Options.parse(args),
                new PrintStream(out, true, StandardCharsets.UTF_8));
        System.out.print(out.toString(StandardCharsets.UTF_8));
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("oversold          0")
                .containsPattern("tenant flash-[0-9a-f-]{36}, slot saturday-star");
        return summary;
    }

    private static void assertSold(FlashSale.Summary s, int students, int seats) {
        assertThat(s.oversold()).isZero();
        assertThat(s.storedBookings()).isEqualTo(seats);
        assertThat(s.booked()).isEqualTo(seats);
        assertThat(s.full()).isEqualTo(students - seats);
        assertThat(s.other() + s.conflicts()).isZero();
    }

    @Test
    void embeddedDefaultSellsExactlyTheSeats() throws Exception {
        assertSold(sale("--students", "300", "--seats", "7", "--threads", "16"), 300, 7);
    }

    @Test
    void dbOnlySellsExactlyTheSeats() throws Exception {
        assertSold(sale("--no-redis", "--students", "300", "--seats", "7", "--threads", "16"), 300, 7);
    }

    @Test
    void realServersWhenConfigured() throws Exception {
        String pg = System.getenv("SLOTBOOK_TEST_POSTGRES_URL");
        String redis = System.getenv("SLOTBOOK_TEST_REDIS_URL");
        if (pg == null || redis == null) {
            if (Boolean.parseBoolean(System.getenv("SLOTBOOK_TEST_REQUIRE_SERVICES"))) {
                throw new AssertionError("SLOTBOOK_TEST_POSTGRES_URL and SLOTBOOK_TEST_REDIS_URL are required");
            }
            org.junit.jupiter.api.Assumptions.abort("no PostgreSQL/Redis configured");
        }
        assertSold(sale("--jdbc", pg, "--redis", redis, "--students", "500", "--seats", "10", "--threads", "32"),
                500, 10);
        String maria = System.getenv("SLOTBOOK_TEST_MARIADB_URL");
        if (maria != null) {
            assertSold(sale("--jdbc", maria, "--no-redis", "--students", "200", "--seats", "5", "--threads", "16"),
                    200, 5);
        }
    }

    @Test
    void badFlagsAreNamed() {
        assertThatThrownBy(() -> FlashSale.Options.parse("--students", "many"))
                .hasMessage("--students must be a number, got 'many'");
        assertThatThrownBy(() -> FlashSale.Options.parse("--seats", "0"))
                .hasMessage("--seats must be between 1 and 100000, got 0");
        assertThatThrownBy(() -> FlashSale.Options.parse("--colour", "red")).hasMessage("unknown flag '--colour'");
        assertThatThrownBy(() -> FlashSale.Options.parse("--jdbc")).hasMessage("--jdbc needs a value");
        assertThatThrownBy(() -> FlashSale.Options.parse("--no-redis", "--redis", "redis://127.0.0.1:6379"))
                .hasMessageContaining("exclude each other");
    }
}
