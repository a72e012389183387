package org.slotbook.core;

import java.time.Instant;
import java.util.Set;
import org.slotbook.core.internal.Checks;

/**
 * A package of lessons to grant a student ({@link BookingEngine#grantPackage}): {@code credits} (1..10000)
 * for sessions starting within {@code [validFrom, validUntil)}, of the class types named (empty: any
 * session; at most 20 types, each an id-like text of at most 32 characters without a comma). Granting the same package
 * id again is idempotent.
 */
public record PackageGrant(PackageId packageId, StudentId studentId, int credits, Instant validFrom,
                           Instant validUntil, Set<String> classTypes) {
    /** The most credits one package may hold. */
    public static final int MAX_CREDITS = 10_000;
    /** The most class types one package may name. */
    public static final int MAX_CLASS_TYPES = 20;

    /**
     * Checks the components: ids present, credits in range, the validity window not empty.
     *
     * @param packageId the lesson package
     * @param studentId the student the booking or entry belongs to
     * @param credits the credits granted (1..10,000)
     * @param validFrom the start of validity: sessions starting before it are not paid
     * @param validUntil the end of validity (exclusive): sessions starting at or after it are not paid
     * @param classTypes the class types the package pays for (empty: every type)
     */
    public PackageGrant {
        Checks.notNull("packageId", packageId);
        Checks.notNull("studentId", studentId);
        Checks.between("credits", credits, 1, MAX_CREDITS);
        validFrom = Checks.micros("validFrom", validFrom);
        validUntil = Checks.micros("validUntil", validUntil);
        if (!validFrom.isBefore(validUntil)) {
            throw new InvalidInputException("validFrom " + validFrom + " must be before validUntil " + validUntil);
        }
        Checks.notNull("classTypes", classTypes);
        if (classTypes.size() > MAX_CLASS_TYPES) {
            throw new InvalidInputException("classTypes must name at most " + MAX_CLASS_TYPES + " types, got "
                    + classTypes.size());
        }
        for (String type : classTypes) {
            Checks.classType("classType", type);
        }
        classTypes = Set.copyOf(classTypes);
    }

    /**
     * {@return a package of {@code credits} for any session starting within {@code [validFrom, validUntil)}}
     *
     * @param packageId the lesson package
     * @param studentId the student the booking or entry belongs to
     * @param credits the credits granted (1..10,000)
     * @param validFrom the start of validity: sessions starting before it are not paid
     * @param validUntil the end of validity (exclusive): sessions starting at or after it are not paid
     */
    public static PackageGrant of(PackageId packageId, StudentId studentId, int credits, Instant validFrom,
                                  Instant validUntil) {
        return new PackageGrant(packageId, studentId, credits, validFrom, validUntil, Set.of());
    }

    /**
     * {@return this grant for sessions of these class types only}
     *
     * @param types the class types the package pays for
     */
    public PackageGrant forClassTypes(String... types) {
        return new PackageGrant(packageId, studentId, credits, validFrom, validUntil, Set.of(types));
    }
}
