package org.slotbook.core;

/** The kinds of resource that can never be in two overlapping sessions at once. */
public enum ResourceKind {
    /** A coach: in one session at a time. */
    COACH,
    /** A room: hosts one session at a time. */
    ROOM,
    /** A student: in one session at a time. */
    STUDENT
}
