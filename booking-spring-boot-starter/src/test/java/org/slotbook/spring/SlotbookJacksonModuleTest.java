package org.slotbook.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.slotbook.core.AlreadyBooked;
import org.slotbook.core.AlreadyCancelled;
import org.slotbook.core.Booking;
import org.slotbook.core.BookingId;
import org.slotbook.core.BookingStatus;
import org.slotbook.core.CancelResult;
import org.slotbook.core.Conflict;
import org.slotbook.core.Full;
import org.slotbook.core.Held;
import org.slotbook.core.HoldResult;
import org.slotbook.core.NotFound;
import org.slotbook.core.RequestId;
import org.slotbook.core.ResourceConflict;
import org.slotbook.core.ResourceRef;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.TenantId;
import org.slotbook.core.TimeRange;
import org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.autoconfigure.AutoConfigurations;

/** Results carry their type, ids are plain strings: on the ObjectMapper Spring Boot builds. */
class SlotbookJacksonModuleTest {
    private static final Instant T = Instant.parse("2030-01-01T10:00:00Z");

    private static Booking booking() {
        return new Booking(TenantId.of("t1"), BookingId.of("b1"), RequestId.of("r1"), SlotId.of("s1"),
                StudentId.of("st1"), 1, BookingStatus.HELD, T.plus(Duration.ofMinutes(10)), T, T);
    }

    private static void withMapper(java.util.function.Consumer<ObjectMapper> test) {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class,
                        SlotbookJacksonAutoConfiguration.class))
                .run(context -> test.accept(context.getBean(ObjectMapper.class)));
    }

    @Test
    void resultsCarryTheirTypeAndIdsAreStrings() {
        withMapper(mapper -> {
            JsonNode held = tree(mapper, new Held(booking(), false));
            assertThat(held.get("type").asText()).isEqualTo("Held");
            assertThat(held.get("booking").get("bookingId").asText()).isEqualTo("b1");
            assertThat(held.get("booking").get("tenantId").isTextual()).isTrue();
            assertThat(tree(mapper, new Full(SlotId.of("s1"))).toString()).isEqualTo("{\"type\":\"Full\",\"slotId\":\"s1\"}");
            assertThat(tree(mapper, new AlreadyBooked(booking())).get("type").asText()).isEqualTo("AlreadyBooked");
            // two outcomes without fields are told apart
            assertThat(tree(mapper, new NotFound()).toString()).isEqualTo("{\"type\":\"NotFound\"}");
            assertThat(tree(mapper, new AlreadyCancelled()).get("type").asText())
                    .isEqualTo("AlreadyCancelled");
            Conflict conflict = new Conflict(List.of(new ResourceConflict(ResourceRef.of(StudentId.of("st1")),
                    SlotId.of("s0"), Optional.of(BookingId.of("b0")), TimeRange.of(T, Duration.ofHours(1)))));
            JsonNode c = tree(mapper, conflict);
            assertThat(c.get("type").asText()).isEqualTo("Conflict");
            assertThat(c.get("conflicts").get(0).get("bookingId").asText()).isEqualTo("b0");
            assertThat(tree(mapper, new org.slotbook.core.InsufficientCredits(SlotId.of("s1"), 2)).toString())
                    .isEqualTo("{\"type\":\"InsufficientCredits\",\"slotId\":\"s1\",\"cost\":2}");
            JsonNode checkedIn = tree(mapper, new org.slotbook.core.CheckedIn(booking(), true));
            assertThat(checkedIn.get("type").asText()).isEqualTo("CheckedIn");
            assertThat(checkedIn.get("booking").get("attendance").asText()).isEqualTo("NONE");
        });
    }

    @Test
    void typedAsTheirInterfaceToo() {
        withMapper(mapper -> {
            try {
                HoldResult full = new Full(SlotId.of("s2"));
                assertThat(mapper.writerFor(HoldResult.class).writeValueAsString(full)).contains("\"type\":\"Full\"");
                CancelResult none = new NotFound();
                assertThat(mapper.writerFor(CancelResult.class).writeValueAsString(none))
                        .isEqualTo("{\"type\":\"NotFound\"}");
                assertThat(mapper.readValue("\"b9\"", BookingId.class)).isEqualTo(BookingId.of("b9"));
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }

    private static JsonNode tree(ObjectMapper mapper, Object value) {
        try {
            return mapper.readTree(mapper.writeValueAsString(value));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
