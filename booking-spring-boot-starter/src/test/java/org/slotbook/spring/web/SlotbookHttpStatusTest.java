package org.slotbook.spring.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.slotbook.core.AvailabilityResult;
import org.slotbook.core.CancelResult;
import org.slotbook.core.CancelSlotResult;
import org.slotbook.core.CheckInResult;
import org.slotbook.core.ConfirmResult;
import org.slotbook.core.Full;
import org.slotbook.core.HoldResult;
import org.slotbook.core.LeaveResult;
import org.slotbook.core.NotFound;
import org.slotbook.core.ScheduleResult;
import org.slotbook.core.SlotId;
import org.springframework.http.HttpStatus;

/** Every result type of every operation has its status; a value that is no result is refused. */
class SlotbookHttpStatusTest {

    @Test
    void everyResultOfEveryOperationHasAStatus() {
        Set<Class<?>> results = new LinkedHashSet<>();
        for (Class<?> operation : new Class<?>[] {HoldResult.class, ConfirmResult.class, CancelResult.class,
                CancelSlotResult.class, ScheduleResult.class, AvailabilityResult.class, LeaveResult.class,
                CheckInResult.class}) {
            results.addAll(Set.of(operation.getPermittedSubclasses()));
        }
        assertThat(results).hasSizeGreaterThan(20);
        for (Class<?> result : results) {
            assertThat(SlotbookHttpStatus.ofType(result)).as(result.getSimpleName()).isNotNull();
        }
    }

    @Test
    void aHoldIsCreatedAFullSlotAConflictAndAnUnknownOneNotFound() {
        assertThat(SlotbookHttpStatus.of(new Full(SlotId.of("s")))).isEqualTo(HttpStatus.CONFLICT);
        assertThat(SlotbookHttpStatus.of(new NotFound())).isEqualTo(HttpStatus.NOT_FOUND);
        assertThat(SlotbookHttpStatus.response(new NotFound()).getStatusCode()).isEqualTo(HttpStatus.NOT_FOUND);
        assertThat(SlotbookHttpStatus.ofType(org.slotbook.core.Held.class)).isEqualTo(HttpStatus.CREATED);
        assertThatThrownBy(() -> SlotbookHttpStatus.of("Held")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.lang.String");
    }
}
