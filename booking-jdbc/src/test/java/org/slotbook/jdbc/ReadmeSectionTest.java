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
import java.util.Set;
import java.util.TreeSet;
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
import org.slotbook.core.tck.MarkdownPages;
import org.slotbook.jdbc.internal.SqlScript;

/**
 * Keeps the database pages honest: the README's wiring snippet (getting started, step 2) is the code
 * below (which runs, on H2), and every schema file the SQL reference links is the shipped one.
 */
class ReadmeSectionTest {
    /** Where the SQL reference's links lead, relative to the page (docs/reference). */
    private static final String SHIPPED = "../../booking-jdbc/src/main/resources/";

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
    void thePagesShowTheWiringAndLinkTheShippedDdl() throws IOException {
        String section = MarkdownPages.section("README.md", "### 2. Create the schema and the engine");
        List<String> source = Files.readAllLines(Path.of("src/test/java/org/slotbook/jdbc/ReadmeSectionTest.java"));
        int from = indexOf(source, "--- wiring (README) ---") + 1;
        int to = indexOf(source, "--- end of wiring ---");
        String wiring = strip(source.subList(from, to));
        assertThat(section).contains("```java\n" + wiring + "```");

        // every schema file (tables) the reference links is the file the jar ships under that name
        Path reference = MarkdownPages.root().resolve("docs/reference/storage.md");
        Matcher ddl = Pattern.compile("\\]\\(" + Pattern.quote(SHIPPED) + "(org/slotbook/jdbc/(schema-[a-z0-9-]+\\.sql))\\)")
                .matcher(Files.readString(reference));
        Set<String> linked = new TreeSet<>();
        while (ddl.find()) {
            String resource = ddl.group(1);
            Path target = reference.getParent().resolve(SHIPPED + resource).normalize();
            assertThat(target).as("link to %s", ddl.group(2)).isRegularFile();
            assertThat(Files.readString(target)).as(resource).isEqualTo(SqlScript.raw(resource));
            linked.add(ddl.group(2));
        }
        assertThat(linked).as("DDL files linked").hasSize(4).containsExactly("schema-h2.sql", "schema-mariadb.sql",
                "schema-postgresql-exclusion.sql", "schema-postgresql.sql");
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
