package org.slotbook.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Bad input is an {@link InvalidInputException} (an {@link IllegalArgumentException}, so existing
 * catch blocks keep working) naming the field and the value, on every path: the id and value records
 * and the library's own checks; no main source of core, jdbc or redis throws a bare
 * IllegalArgumentException any more.
 */
class InvalidInputExceptionTest {

    @Test
    void theValueRecordsNameTheFieldInTheExceptionAndItsMessage() {
        assertThatThrownBy(() -> StudentId.of(" "))
                .isInstanceOf(InvalidInputException.class).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("studentId").hasMessageContaining("' '")
                .satisfies(e -> assertThat(((InvalidInputException) e).field()).isEqualTo("studentId"));
        assertThatThrownBy(() -> TenantId.of(null))
                .isInstanceOf(InvalidInputException.class)
                .satisfies(e -> assertThat(((InvalidInputException) e).field()).isEqualTo("tenantId"));
        assertThatThrownBy(() -> TimeRange.of(java.time.Instant.EPOCH, java.time.Instant.EPOCH))
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("end");
        assertThatThrownBy(() -> HoldPolicy.ofMinutes(0))
                .isInstanceOf(InvalidInputException.class).hasMessageContaining("0");
    }

    @Test
    void theSimpleConstructorsServeAnyThrower() {
        InvalidInputException plain = new InvalidInputException("when must not be null");
        assertThat(plain.field()).isNull();
        assertThat(plain).hasMessage("when must not be null");
        InvalidInputException named = new InvalidInputException("when", "when must be after 2000, got 1999");
        assertThat(named.field()).isEqualTo("when");
        RequestIdReusedException reused = new RequestIdReusedException(RequestId.of("r1"), "requestId 'r1' is taken");
        assertThat(reused).isInstanceOf(IllegalArgumentException.class).isNotInstanceOf(InvalidInputException.class);
        assertThat(reused.requestId()).isEqualTo(RequestId.of("r1"));
    }

    @Test
    void noMainSourceThrowsABareIllegalArgumentException() throws IOException {
        List<String> offenders;
        try (Stream<Path> files = Stream.of("booking-core", "booking-jdbc", "booking-redis")
                .map(m -> Path.of("..", m, "src/main/java"))
                .flatMap(InvalidInputExceptionTest::walk)) {
            offenders = files.filter(f -> f.toString().endsWith(".java"))
                    .filter(f -> read(f).contains("new IllegalArgumentException("))
                    .map(Path::toString).toList();
        }
        assertThat(offenders).isEmpty();
    }

    private static Stream<Path> walk(Path root) {
        try {
            return Files.walk(root);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
