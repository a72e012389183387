package org.slotbook.core;

import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.slotbook.core.internal.Checks;

/**
 * One movement of a package's credits, in its append-only journal: the package's
 * {@link LessonPackage#remaining()} is the sum of its entries' {@code delta}.
 *
 * @param seq       the entry's place in the tenant's journal (ascending in the order they were written)
 * @param bookingId the booking the credits moved for; null for the GRANT
 * @param requestId the request of that booking; null for the GRANT
 */
public record CreditEntry(TenantId tenantId, PackageId packageId, long seq, Reason reason, int delta,
                          @Nullable BookingId bookingId, @Nullable RequestId requestId, Instant at) {
    /** Why credits moved. */
    public enum Reason {
        /** The package was granted: {@code +credits}. */
        GRANT,
        /** A booking (at booking or at check-in, per {@link CreditPolicy}) paid: {@code -cost}. */
        DRAW,
        /** A booking that paid ended in time (cancel before the cutoff, by staff, slot cancelled, hold expired). */
        REFUND,
        /** A late cancel or a no-show paid under {@link CreditPolicy#AT_CHECK_IN}: {@code -cost}. */
        FORFEIT
    }

    /**
     * Checks the components: ids, kind and time present.
     *
     * @param tenantId the tenant it belongs to
     * @param packageId the lesson package
     * @param seq the entry's place in the tenant's journal (ascending in the order they were written)
     * @param reason why the credits moved: grant, draw, refund or forfeit
     * @param delta the credits added (positive) or taken (negative)
     * @param bookingId the booking the credits moved for; null for the GRANT
     * @param requestId the request of that booking; null for the GRANT
     * @param at when the credits moved
     */
    public CreditEntry {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("packageId", packageId);
        Checks.notNull("reason", reason);
        if (reason == Reason.GRANT || reason == Reason.REFUND ? delta <= 0 : delta >= 0) {
            throw new InvalidInputException("delta " + delta + " does not fit reason " + reason);
        }
        if ((reason == Reason.GRANT) != (bookingId == null)) {
            throw new InvalidInputException("bookingId " + bookingId + " does not fit reason " + reason);
        }
        at = Checks.micros("at", at);
    }
}
