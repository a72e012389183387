package org.slotbook.spring.web;

import java.net.URI;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slotbook.core.BookingStoreException;
import org.slotbook.core.InvalidInputException;
import org.slotbook.core.RequestIdReusedException;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Slotbook's exceptions as RFC 9457 problem details ({@code application/problem+json}):
 * <ul>
 *   <li>{@link InvalidInputException}: 400, the message (which names the field and the value) as the
 *       detail, the field as the {@code field} property;</li>
 *   <li>{@link RequestIdReusedException}: 409, the request id as the {@code requestId} property;</li>
 *   <li>{@link BookingStoreException}: 503 with {@code Retry-After} when it is retryable (the database
 *       is away: try again later), 500 otherwise; the detail never carries the driver's message.</li>
 * </ul>
 * Any other {@link IllegalArgumentException} is left to the application: it is a bug of the caller's
 * code, not a client error. Ordered last, so the application's own advice for these types wins.
 */
@RestControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class SlotbookProblemDetails {
    /** The {@code type} of each problem, under this base. */
    public static final String TYPE_BASE = "https://slotbook.org/problems/";

    private static final Logger LOG = LoggerFactory.getLogger(SlotbookProblemDetails.class);

    private final Duration retryAfter;

    /**
     * An advice whose 503 answers carry {@code retryAfter}.
     *
     * @param retryAfter the {@code Retry-After} of a 503, rounded up to whole seconds
     */
    public SlotbookProblemDetails(Duration retryAfter) {
        this.retryAfter = retryAfter;
    }

    /**
     * Bad input as a 400 problem.
     *
     * @param e the refused input
     * @return a 400 problem with the message as its detail and the field, when known, as a property
     */
    @ExceptionHandler(InvalidInputException.class)
    public ResponseEntity<ProblemDetail> invalidInput(InvalidInputException e) {
        ProblemDetail problem = problem(HttpStatus.BAD_REQUEST, "invalid-input", "Invalid input", e.getMessage());
        if (e.field() != null) {
            problem.setProperty("field", e.field());
        }
        return ResponseEntity.status(HttpStatus.BAD_REQUEST).body(problem);
    }

    /**
     * A request id sent again with another request, as a 409 problem.
     *
     * @param e the refused request
     * @return a 409 problem with the request id as a property
     */
    @ExceptionHandler(RequestIdReusedException.class)
    public ResponseEntity<ProblemDetail> requestIdReused(RequestIdReusedException e) {
        ProblemDetail problem = problem(HttpStatus.CONFLICT, "request-id-reused", "Request id reused", e.getMessage());
        problem.setProperty("requestId", e.requestId().value());
        return ResponseEntity.status(HttpStatus.CONFLICT).body(problem);
    }

    /**
     * A store failure as a 503 problem with {@code Retry-After} when it is retryable, else a 500 problem.
     * The failure is logged; the problem never carries the driver's message.
     *
     * @param e the store's failure
     * @return a 503 or 500 problem that says whether the outcome is unknown
     */
    @ExceptionHandler(BookingStoreException.class)
    public ResponseEntity<ProblemDetail> storeFailed(BookingStoreException e) {
        LOG.warn("Slotbook's store failed (retryable: {}, outcome unknown: {})", e.retryable(), e.outcomeUnknown(), e);
        if (e.retryable()) {
            ProblemDetail problem = problem(HttpStatus.SERVICE_UNAVAILABLE, "store-unavailable",
                    "Booking store unavailable", "The booking store is unavailable; try again later with the same"
                            + " request id.");
            problem.setProperty("outcomeUnknown", e.outcomeUnknown());
            long seconds = Math.max(1, (retryAfter.toMillis() + 999) / 1000);
            return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                    .header(HttpHeaders.RETRY_AFTER, Long.toString(seconds)).body(problem);
        }
        ProblemDetail problem = problem(HttpStatus.INTERNAL_SERVER_ERROR, "store-failed", "Booking store failed",
                "The booking store failed.");
        problem.setProperty("outcomeUnknown", e.outcomeUnknown());
        return ResponseEntity.status(HttpStatus.INTERNAL_SERVER_ERROR).body(problem);
    }

    private static ProblemDetail problem(HttpStatus status, String type, String title, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setType(URI.create(TYPE_BASE + type));
        problem.setTitle(title);
        return problem;
    }
}
