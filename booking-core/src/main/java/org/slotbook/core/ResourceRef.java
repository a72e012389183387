package org.slotbook.core;

import org.slotbook.core.internal.Checks;

/** One coach, room or student, as the conflict check sees it. Ordered by kind, then id in code point order ({@link Identifier#compareCodePoints}). */
public record ResourceRef(ResourceKind kind, String id) implements Comparable<ResourceRef> {
    /**
     * Checks the components: kind and id present.
     *
     * @param kind coach, room or student
     * @param id the coach's, room's or student's id
     */
    public ResourceRef {
        Checks.notNull("kind", kind);
        Checks.id("id", id);
    }

    /**
     * {@return the coach as a resource}
     *
     * @param coach the coach to lock or occupy
     */
    public static ResourceRef of(CoachId coach) {
        return new ResourceRef(ResourceKind.COACH, Checks.notNull("coachId", coach).value());
    }

    /**
     * {@return the room as a resource}
     *
     * @param room the room to lock or occupy
     */
    public static ResourceRef of(RoomId room) {
        return new ResourceRef(ResourceKind.ROOM, Checks.notNull("roomId", room).value());
    }

    /**
     * {@return the student as a resource}
     *
     * @param student the student to lock or occupy
     */
    public static ResourceRef of(StudentId student) {
        return new ResourceRef(ResourceKind.STUDENT, Checks.notNull("studentId", student).value());
    }

    @Override
    public int compareTo(ResourceRef other) {
        int byKind = kind.compareTo(other.kind);
        return byKind != 0 ? byKind : Identifier.compareCodePoints(id, other.id);
    }

    @Override
    public String toString() {
        return kind + ":" + id;
    }
}
