package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingEngine;
import org.slotbook.core.CoachId;
import org.slotbook.core.Held;
import org.slotbook.core.HoldPolicy;
import org.slotbook.core.HoldRequest;
import org.slotbook.core.RequestId;
import org.slotbook.core.RoomId;
import org.slotbook.core.Scheduled;
import org.slotbook.core.SlotId;
import org.slotbook.core.SlotSpec;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.slotbook.jdbc.internal.SqlScript;

/**
 * Keeps the README's database section honest: its wiring snippet is the code below (which runs, on H2),
 * and every DDL block it quotes is a shipped schema file, character for character.
 */
class ReadmeSectionTest {
    private static final Path SECTION = Path.of("../README.md");

    static BookingEngine wire(String jdbcUrl) {
        // --- wiring (README) ---
        HikariDataSource dataSource = new HikariDataSource();
        dataSource.setJdbcUrl(jdbcUrl);
        dataSource.setTransactionIsolation("TRANSACTION_READ_COMMITTED"); // what the store uses

        JdbcSchema.create(dataSource);                   // tables and routines slotbook_...
        JdbcStore store = JdbcStore.create(dataSource);  // dialect from the connection's metadata

        BookingEngine engine = BookingEngine.builder()
                .store(store)
                .holdPolicy(HoldPolicy.ofMinutes(10))
                .build();
        // --- end of wiring ---
        return engine;
    }

    @Test
    void theWiringRuns() {
        BookingEngine engine = wire("jdbc:h2:mem:readme;DB_CLOSE_DELAY=-1");
        TenantId tenant = TenantId.of("readme");
        Instant start = Instant.now().plus(Duration.ofDays(1)).truncatedTo(ChronoUnit.HOURS);
        SlotSpec spec = new SlotSpec(SlotId.of("yoga"), CoachId.of("ana"), RoomId.of("studio"),
                TimeRange.of(start, Duration.ofHours(1)), 1);
        assertThat(engine.schedule(tenant, spec)).isInstanceOf(Scheduled.class);
        assertThat(engine.hold(tenant, HoldRequest.of(RequestId.random(), spec.slotId(), StudentId.of("li"))))
                .isInstanceOf(Held.class);
    }

    @Test
    void theSectionQuotesTheWiringAndTheShippedDdl() throws IOException {
        String section = Files.readString(SECTION);
        List<String> source = Files.readAllLines(Path.of("src/test/java/org/slotbook/jdbc/ReadmeSectionTest.java"));
        int from = indexOf(source, "--- wiring (README) ---") + 1;
        int to = indexOf(source, "--- end of wiring ---");
        String wiring = strip(source.subList(from, to));
        assertThat(section).contains("```java\n" + wiring + "```");

        Matcher ddl = Pattern.compile("<!-- ddl: (\\S+) -->\n```sql\n(.*?)```", Pattern.DOTALL).matcher(section);
        int quoted = 0;
        while (ddl.find()) {
            String resource = "org/slotbook/jdbc/" + ddl.group(1);
            String shipped = SqlScript.raw(resource);
            assertThat(ddl.group(2)).as(resource).isEqualTo(shipped);
            quoted++;
        }
        assertThat(quoted).as("DDL blocks quoted").isEqualTo(4);
    }

    private static String strip(List<String> lines) {
        int indent = lines.stream().filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        return lines.stream().map(l -> l.isBlank() ? "" : l.substring(indent)).collect(Collectors.joining("\n"))
                + "\n";
    }

    private static int indexOf(List<String> lines, String marker) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(marker)) {
                return i;
            }
        }
        throw new AssertionError("marker not found: " + marker);
    }
}
