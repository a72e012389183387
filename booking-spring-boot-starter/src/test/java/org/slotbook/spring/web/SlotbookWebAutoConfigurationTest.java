package org.slotbook.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.RequestId;
import org.slotbook.core.RequestIdReusedException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

/** The problem details advice: on in a servlet web application, off elsewhere, and the host's own wins. */
class SlotbookWebAutoConfigurationTest {
    private final WebApplicationContextRunner web = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SlotbookWebAutoConfiguration.class));

    @Test
    void onInAServletWebApplicationOnly() {
        web.run(context -> assertThat(context).hasSingleBean(SlotbookProblemDetails.class));
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(SlotbookWebAutoConfiguration.class))
                .run(context -> assertThat(context).doesNotHaveBean(SlotbookProblemDetails.class));
        web.withPropertyValues("slotbook.web.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(SlotbookProblemDetails.class));
    }

    @Test
    void theApplicationsOwnBeanReplacesIt() {
        SlotbookProblemDetails own = new SlotbookProblemDetails(Duration.ofSeconds(9));
        web.withBean(SlotbookProblemDetails.class, () -> own)
                .run(context -> assertThat(context.getBean(SlotbookProblemDetails.class)).isSameAs(own));
    }

    @Test
    void eachExceptionHasItsStatusAndNothingInternalLeaks() {
        SlotbookProblemDetails problems = new SlotbookProblemDetails(Duration.ofMillis(1500));
        ResponseEntity<ProblemDetail> invalid = problems.invalidInput(
                new InvalidInputException("studentId", "studentId must not be blank, got ' '"));
        assertThat(invalid.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
        assertThat(invalid.getBody().getDetail()).isEqualTo("studentId must not be blank, got ' '");
        assertThat(invalid.getBody().getProperties()).containsEntry("field", "studentId");

        ResponseEntity<ProblemDetail> reused = problems.requestIdReused(
                new RequestIdReusedException(RequestId.of("r9"), "requestId 'r9' is already taken"));
        assertThat(reused.getStatusCode()).isEqualTo(HttpStatus.CONFLICT);
        assertThat(reused.getBody().getProperties()).containsEntry("requestId", "r9");

        ResponseEntity<ProblemDetail> away = problems.storeFailed(new BookingStoreException(
                "connection to 10.0.0.7:5432 refused (secret host)", null, true, false));
        assertThat(away.getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
        assertThat(away.getHeaders().getFirst("Retry-After")).as("1.5 s rounded up").isEqualTo("2");
        assertThat(away.getBody().getDetail()).doesNotContain("10.0.0.7");

        ResponseEntity<ProblemDetail> broken = problems.storeFailed(new BookingStoreException("missing table"));
        assertThat(broken.getStatusCode()).isEqualTo(HttpStatus.INTERNAL_SERVER_ERROR);
        assertThat(broken.getHeaders().containsKey("Retry-After")).isFalse();
    }
}
