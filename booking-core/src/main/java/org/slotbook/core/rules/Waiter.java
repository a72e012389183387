package org.slotbook.core.rules;

import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.BookingId;
import org.slotbook.core.RequestId;
import org.slotbook.core.SlotId;
import org.slotbook.core.StudentId;
import org.slotbook.core.WaitlistEntry;
import org.slotbook.core.internal.Checks;

/**
 * A stored place on a slot's waitlist; the rules work out its position from the slot's waiters.
 *
 * @param seq       the order the tenant's waiters joined in (ascending)
 * @param slotId    the slot it waits for
 * @param requestId the request that put it there
 * @param studentId the student who waits
 * @param bookingId the id of the booking a promotion gives this waiter
 * @param joinedAt  when it joined
 * @param status    where it stands
 * @param reason    why a SKIPPED waiter was passed over, else null
 */
public record Waiter(long seq, SlotId slotId, RequestId requestId, StudentId studentId, BookingId bookingId,
                     Instant joinedAt, WaitlistEntry.Status status, WaitlistEntry.@Nullable SkipReason reason) {
    /**
     * Checks that every component but the reason is present.
     *
     * @param seq       the order the tenant's waiters joined in (ascending)
     * @param slotId    the slot it waits for
     * @param requestId the request that put it there
     * @param studentId the student who waits
     * @param bookingId the id of the booking a promotion gives this waiter
     * @param joinedAt  when it joined
     * @param status    where it stands
     * @param reason    why a SKIPPED waiter was passed over, else null
     */
    public Waiter {
        Checks.notNull("slotId", slotId);
        Checks.notNull("requestId", requestId);
        Checks.notNull("studentId", studentId);
        Checks.notNull("bookingId", bookingId);
        Checks.notNull("joinedAt", joinedAt);
        Checks.notNull("status", status);
    }
}
