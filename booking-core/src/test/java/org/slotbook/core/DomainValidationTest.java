package org.slotbook.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class DomainValidationTest {
    private static final Instant T = Instant.parse("2026-03-01T09:00:00Z");

    @Test
    void idsNameTheFieldAndTheValue() {
        assertThatThrownBy(() -> TenantId.of((String) null)).hasMessage("tenantId must not be null");
        assertThatThrownBy(() -> CoachId.of("  ")).hasMessage("coachId must not be blank, got '  '");
        assertThatThrownBy(() -> RoomId.of(0)).hasMessage("roomId must be positive, got 0");
        assertThatThrownBy(() -> StudentId.of(-7)).hasMessage("studentId must be positive, got -7");
        assertThatThrownBy(() -> SlotId.of("x".repeat(65))).hasMessageStartingWith("slotId must be at most 64");
        assertThatThrownBy(() -> BookingId.of("a\nb")).hasMessageContaining("bookingId must not contain control");
        assertThatThrownBy(() -> RequestId.of(" r")).hasMessageContaining("requestId must not start or end");
        assertThat(StudentId.of(42).value()).isEqualTo("42");
        assertThat(SlotId.of("o'brien; DROP TABLE x").value()).isEqualTo("o'brien; DROP TABLE x");
    }

    @Test
    void idsMustBeWellFormedUnicodeAndNotOnlyUnicodeSpaces() {
        // databases store a lone surrogate as '?' (PostgreSQL) or drop it (MariaDB): two ids would collide
        for (String bad : new String[] {"acme\uD800", "\uDC00acme", "ac\uDBFFme", "acme\uDC00\uD800"}) {
            assertThatThrownBy(() -> TenantId.of(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("tenantId must be well-formed Unicode")
                    .hasMessageNotContaining(bad)
                    .satisfies(e -> assertThat(e.getMessage().chars().filter(c -> Character.isSurrogate((char) c))).isEmpty());
        }
        assertThatThrownBy(() -> TenantId.of("acme\uD800")).hasMessageContaining("\\uD800");
        for (String spaces : new String[] {"\u00A0", "\u2007", "\u202F", "\u00A0\u2007\u202F", "\u3000\u00A0",
                "\u2000\u200A", "\u205F", "\u1680"}) {
            assertThatThrownBy(() -> StudentId.of(spaces)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("studentId must not be blank")
                    .hasMessageNotContaining(spaces);
        }
        assertThatThrownBy(() -> SlotId.of("\u00A0")).hasMessage("slotId must not be blank, got '\\u00A0'");
        assertThatThrownBy(() -> BookingId.of("a\u0000b")).hasMessageContaining("'a\\u0000b'");
        // a surrogate pair is one well-formed character; a space inside an id is data
        assertThat(TenantId.of("acme\uD83D\uDE00").value()).isEqualTo("acme\uD83D\uDE00");
        assertThat(TenantId.of("acme?").value()).isEqualTo("acme?");
        assertThat(CoachId.of("ana\u00A0maria").value()).isEqualTo("ana\u00A0maria");
        assertThat(SlotId.of("\uD83D\uDE00").value()).isEqualTo("\uD83D\uDE00");
    }

    @Test
    void idsRefuseBidirectionalControlsAndInvisibleCharactersButKeepEmojiJoiners() {
        String[] hidden = {"\u202A", "\u202B", "\u202C", "\u202D", "\u202E", "\u2066", "\u2067", "\u2068",
                "\u2069", "\u200E", "\u200F", "\u061C", "\u200B", "\u2060", "\uFEFF"};
        for (String c : hidden) {
            String id = "ann" + c + "nna";
            String shown = String.format("\\u%04X", (int) c.charAt(0));
            assertThatThrownBy(() -> StudentId.of(id)).as(shown).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("studentId must not contain bidirectional controls or invisible characters")
                    .hasMessageContaining(shown).hasMessageContaining("at index 3")
                    .hasMessageNotContaining(c);
        }
        // "evil\u202Efdp.exe" would show as "evilexe.pdf" in a staff screen
        assertThatThrownBy(() -> RequestId.of("evil\u202Efdp.exe")).hasMessageContaining("requestId")
                .hasMessageContaining("evil\\u202Efdp.exe");
        assertThatThrownBy(() -> TenantId.of("\uFEFFacme")).hasMessageContaining("tenantId");
        // emoji sequences joined by U+200D (and their variation selectors) stay ids
        String family = "\uD83D\uDC69\u200D\uD83D\uDC69\u200D\uD83D\uDC67\u200D\uD83D\uDC66";
        String rainbowFlag = "\uD83C\uDFF3\uFE0F\u200D\uD83C\uDF08";
        assertThat(StudentId.of(family).value()).isEqualTo(family);
        assertThat(SlotId.of("yoga-" + rainbowFlag).value()).isEqualTo("yoga-" + rainbowFlag);
    }

    @Test
    void instantsOutsideTheRangeEveryDatabaseStoresAreRefusedByFieldAndValue() {
        assertThatThrownBy(() -> TimeRange.of(Instant.parse("9999-06-01T10:00:00Z"), Duration.ofHours(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("start must be from 1900-01-01T00:00:00Z and before 9999-01-01T00:00:00Z,"
                        + " got 9999-06-01T10:00:00Z");
        assertThatThrownBy(() -> TimeRange.of(Instant.parse("1899-12-31T23:59:59.999999Z"), Duration.ofHours(1)))
                .hasMessageStartingWith("start must be from 1900-01-01T00:00:00Z");
        assertThatThrownBy(() -> TimeRange.of(T, Instant.parse("9999-01-01T00:00:00Z")))
                .hasMessageStartingWith("end must be from").hasMessageEndingWith("got 9999-01-01T00:00:00Z");
        assertThatThrownBy(() -> TimeRange.of(Instant.MIN, T)).hasMessageStartingWith("start must be from");
        assertThatThrownBy(() -> PackageGrant.of(PackageId.of("p"), StudentId.of("s"), 1, T, Instant.MAX))
                .hasMessageContaining("validUntil");
        assertThat(TimeRange.of(Instant.parse("1900-01-01T00:00:00Z"), Instant.parse("9998-12-31T23:59:59.999999Z"))
                .duration()).isPositive();
    }

    @Test
    void timeRangeIsHalfOpenAndMicrosecondPrecise() {
        TimeRange nineToTen = TimeRange.of(T, Duration.ofHours(1));
        TimeRange tenToEleven = TimeRange.of(T.plus(Duration.ofHours(1)), Duration.ofHours(1));
        TimeRange nineThirty = TimeRange.of(T.plus(Duration.ofMinutes(30)), Duration.ofHours(1));
        assertThat(nineToTen.overlaps(tenToEleven)).isFalse();
        assertThat(tenToEleven.overlaps(nineToTen)).isFalse();
        assertThat(nineToTen.overlaps(nineThirty)).isTrue();
        assertThat(nineThirty.overlaps(tenToEleven)).isTrue();
        assertThat(nineToTen.contains(T)).isTrue();
        assertThat(nineToTen.contains(T.plus(Duration.ofHours(1)))).isFalse();

        TimeRange nanos = TimeRange.of(T.plusNanos(1_234_567), T.plusSeconds(1).plusNanos(999));
        assertThat(nanos.start()).isEqualTo(T.plusNanos(1_234_000));
        assertThat(nanos.end()).isEqualTo(T.plusSeconds(1));
        assertThatThrownBy(() -> TimeRange.of(T, T)).hasMessageContaining("end must be after start")
                .hasMessageContaining(T.toString());
        assertThatThrownBy(() -> TimeRange.of(T, T.minusSeconds(1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TimeRange.of(T.plusNanos(10), T.plusNanos(20)))
                .as("equal once truncated to microseconds").isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRangeShorterThanAMicrosecondSaysItWasTruncated() {
        assertThatThrownBy(() -> TimeRange.of(T.plusNanos(10), T.plusNanos(20)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("start and end are the same after truncation to microseconds")
                .hasMessageContaining(T.plusNanos(10).toString()).hasMessageContaining(T.plusNanos(20).toString());
        assertThatThrownBy(() -> TimeRange.of(T.plusNanos(1_000_100), Duration.ofNanos(500)))
                .hasMessageContaining("same after truncation to microseconds");
        // a range that is empty or reversed as given is not blamed on the truncation
        assertThatThrownBy(() -> TimeRange.of(T, T)).hasMessageNotContaining("truncation");
        assertThatThrownBy(() -> TimeRange.of(T.plusNanos(20), T.plusNanos(10))).hasMessageNotContaining("truncation");
        assertThatThrownBy(() -> TimeRange.of(null, T)).hasMessage("start must not be null");
    }

    @Test
    void slotSpecCapacityIsBounded() {
        TimeRange time = TimeRange.of(T, Duration.ofHours(1));
        assertThatThrownBy(() -> new SlotSpec(SlotId.of("s"), CoachId.of("c"), RoomId.of("r"), time, 0))
                .hasMessage("capacity must be between 1 and 100000, got 0");
        assertThatThrownBy(() -> new SlotSpec(SlotId.of("s"), CoachId.of("c"), RoomId.of("r"), time, 100_001))
                .hasMessage("capacity must be between 1 and 100000, got 100001");
        assertThatThrownBy(() -> new SlotSpec(SlotId.of("s"), null, RoomId.of("r"), time, 5))
                .hasMessage("coachId must not be null");
        assertThat(new SlotSpec(SlotId.of("s"), CoachId.of("c"), RoomId.of("r"), time, 100_000).capacity())
                .isEqualTo(100_000);
    }

    @Test
    void holdPolicyDefaultsAndChecks() {
        HoldPolicy defaults = HoldPolicy.ofDefaults();
        assertThat(defaults.holdTtl()).isEqualTo(Duration.ofMinutes(10));
        assertThat(defaults.cacheGrace()).isEqualTo(Duration.ofSeconds(30));
        assertThat(defaults.gateTtl()).isEqualTo(Duration.ofSeconds(630));
        assertThatThrownBy(() -> HoldPolicy.ofMinutes(0)).hasMessageContaining("holdTtl").hasMessageContaining("0");
        assertThatThrownBy(() -> defaults.withCacheGrace(Duration.ofSeconds(-1)))
                .hasMessage("cacheGrace must not be negative, got PT-1S");
        assertThatThrownBy(() -> defaults.withHoldTtl(Duration.ZERO)).hasMessage("holdTtl must be positive, got PT0S");
    }

    @Test
    void holdPolicyRefusesDurationsThatWouldOverflow() {
        HoldPolicy defaults = HoldPolicy.ofDefaults();
        Duration huge = Duration.ofSeconds(Long.MAX_VALUE);
        assertThatThrownBy(() -> defaults.withHoldTtl(huge)).isExactlyInstanceOf(InvalidInputException.class)
                .hasMessageStartingWith("holdTtl must be at most 31 days");
        assertThatThrownBy(() -> defaults.withCacheGrace(huge)).isExactlyInstanceOf(InvalidInputException.class)
                .hasMessageStartingWith("cacheGrace must be at most 1 day");
        assertThatThrownBy(() -> defaults.withInFlightGrace(huge)).isExactlyInstanceOf(InvalidInputException.class)
                .hasMessageStartingWith("inFlightGrace must be at most 1 day");
        assertThatThrownBy(() -> HoldPolicy.ofMinutes(Long.MAX_VALUE)).isExactlyInstanceOf(InvalidInputException.class)
                .hasMessageStartingWith("holdTtl must be at most 31 days");
        assertThatThrownBy(() -> defaults.withHoldTtl(Duration.ofDays(31).plusNanos(1)))
                .hasMessageStartingWith("holdTtl must be at most");
        assertThatThrownBy(() -> defaults.withCacheGrace(Duration.ofDays(1).plusMillis(1)))
                .hasMessageStartingWith("cacheGrace must be at most");
        HoldPolicy longest = defaults.withHoldTtl(Duration.ofDays(31)).withCacheGrace(Duration.ofDays(1))
                .withInFlightGrace(Duration.ofDays(1));
        assertThat(longest.gateTtl()).isEqualTo(Duration.ofDays(32));
    }

    @Test
    void theInFlightGraceDefaultOutlastsAPoolWaitPlusRetries() {
        // HikariCP's default connectionTimeout (30 s) plus the store's retries must fit inside it
        assertThat(HoldPolicy.ofDefaults().inFlightGrace()).isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void bookingLivenessUsesHalfOpenDeadline() {
        Booking held = new Booking(TenantId.of("t"), BookingId.of("b"), RequestId.of("r"), SlotId.of("s"),
                StudentId.of("st"), 1, BookingStatus.HELD, T, T.minusSeconds(60), T.minusSeconds(60));
        assertThat(held.isLive(T.minusNanos(1000))).isTrue();
        assertThat(held.isLive(T)).isFalse();
        assertThat(held.with(BookingStatus.CONFIRMED, T).isLive(T.plusSeconds(9999))).isTrue();
        assertThatThrownBy(() -> new Booking(TenantId.of("t"), BookingId.of("b"), RequestId.of("r"), SlotId.of("s"),
                StudentId.of("st"), 0, BookingStatus.HELD, T, T, T)).hasMessage("seat must be positive, got 0");
    }

    @Test
    void engineBuilderNamesWhatIsMissing() {
        assertThatThrownBy(() -> BookingEngine.builder().build()).hasMessageContaining("store must be set");
        assertThatThrownBy(() -> BookingEngine.builder().maxSessionDuration(Duration.ZERO))
                .hasMessage("maxSessionDuration must be positive, got PT0S");
    }

    @Test
    void idsAreOrderedByTheirTextCharacterByCharacter() {
        java.util.List<SlotId> slots = new java.util.ArrayList<>(java.util.List.of(
                SlotId.of("b"), SlotId.of("B"), SlotId.of("a10"), SlotId.of("a9"), SlotId.of("é")));
        java.util.Collections.sort(slots);
        assertThat(slots).extracting(SlotId::value).containsExactly("B", "a10", "a9", "b", "é");
        assertThat(StudentId.of("x").compareTo(StudentId.of("x"))).isZero();
        assertThat(BookingId.of("a").compareTo(BookingId.of("b"))).isNegative();
        Identifier<TenantId> tenant = TenantId.of("t1");
        assertThat(tenant.value()).isEqualTo("t1");
        assertThat(tenant.compareTo(TenantId.of("t0"))).isPositive();
    }
}
