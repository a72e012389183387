package org.slotbook.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Jdbi is an optional dependency: a host without it still loads, introspects and uses every class of
 * the store. A container that lists a class's methods (Spring, for each bean) resolves every type in
 * their signatures, so only {@link JdbiStores} may name a Jdbi type.
 */
class JdbiOptionalTest {

    @Test
    void noSignatureOutsideJdbiStoresNamesAJdbiType() {
        List<String> found = new ArrayList<>();
        for (Class<?> type : List.of(JdbcStore.class, JdbcStore.Builder.class, JdbcSchema.class, JdbcDialect.class,
                TenantMove.class)) {
            for (Method method : type.getDeclaredMethods()) {
                Stream.concat(Stream.of(method.getReturnType()), Stream.of(method.getParameterTypes()))
                        .filter(t -> t.getName().startsWith("org.jdbi."))
                        .forEach(t -> found.add(type.getSimpleName() + "." + method.getName() + ": " + t.getName()));
            }
        }
        assertThat(found).isEmpty();
        assertThat(Stream.of(JdbiStores.class.getDeclaredMethods()).filter(m -> m.getName().equals("create")))
                .allSatisfy(m -> assertThat(m.getParameterTypes()[0].getName()).isEqualTo("org.jdbi.v3.core.Jdbi"));
    }
}
