package org.slotbook.core;

import java.time.Instant;
import java.util.Set;
import org.slotbook.core.internal.Checks;

/**
 * A package of lessons a student bought: {@code credits} granted, {@code remaining} of them not yet
 * drawn. It pays for sessions that start within {@code [validFrom, validUntil)} and whose class type
 * is one of {@code classTypes} (empty: any session). The balance is kept by the store: every change
 * of {@code remaining} is a {@link CreditEntry} of the package's journal, and the journal sums to it.
 */
public record LessonPackage(TenantId tenantId, PackageId packageId, StudentId studentId, int credits, int remaining,
                            Instant validFrom, Instant validUntil, Set<String> classTypes, Instant grantedAt) {
    /**
     * Checks the components: ids present, the credits in range, the validity window not empty.
     *
     * @param tenantId the tenant it belongs to
     * @param packageId the lesson package
     * @param studentId the student the booking or entry belongs to
     * @param credits the credits granted
     * @param remaining the credits not yet drawn
     * @param validFrom the start of validity: sessions starting before it are not paid
     * @param validUntil the end of validity (exclusive): sessions starting at or after it are not paid
     * @param classTypes the class types the package pays for (empty: every type)
     * @param grantedAt when the package was granted
     */
    public LessonPackage {
        Checks.notNull("tenantId", tenantId);
        Checks.notNull("packageId", packageId);
        Checks.notNull("studentId", studentId);
        Checks.between("credits", credits, 1, PackageGrant.MAX_CREDITS);
        Checks.between("remaining", remaining, 0, credits);
        validFrom = Checks.micros("validFrom", validFrom);
        validUntil = Checks.micros("validUntil", validUntil);
        classTypes = Set.copyOf(Checks.notNull("classTypes", classTypes));
        grantedAt = Checks.micros("grantedAt", grantedAt);
    }

    /**
     * {@return true when this package may pay for {@code slot}: its start is in the validity window, its class
     * type covered}
     *
     * @param slot the slot to pay for
     */
    public boolean covers(Slot slot) {
        Instant start = slot.time().start();
        return !start.isBefore(validFrom) && start.isBefore(validUntil)
                && (classTypes.isEmpty() || (slot.classType() != null && classTypes.contains(slot.classType())));
    }

    /**
     * {@return true when this package was granted from exactly this grant}
     *
     * @param grant the grant to compare with
     */
    public boolean matches(PackageGrant grant) {
        return packageId.equals(grant.packageId()) && studentId.equals(grant.studentId())
                && credits == grant.credits() && validFrom.equals(grant.validFrom())
                && validUntil.equals(grant.validUntil()) && classTypes.equals(grant.classTypes());
    }
}
