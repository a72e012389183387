package org.slotbook.jdbc.testing;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A DataSource that counts what goes to the server through the connections it lends: every
 * statement execution, commit, rollback, autocommit switch, isolation query or switch, and
 * validity check. Drivers send each of these as (at least) one round trip. Apart, the statements the
 * server runs: every execution, and every entry of a batch (a batch is one round trip of many statements).
 */
public final class CountingDataSource extends ForwardingDataSource {
    private static final Set<String> STATEMENT_CALLS = Set.of("execute", "executeQuery", "executeUpdate",
            "executeLargeUpdate", "executeBatch", "executeLargeBatch");
    private static final Set<String> CONNECTION_CALLS = Set.of("commit", "rollback", "setTransactionIsolation",
            "getTransactionIsolation", "isValid", "setSavepoint", "releaseSavepoint");

    private static final Set<String> BATCH_CALLS = Set.of("executeBatch", "executeLargeBatch");

    private final AtomicInteger roundTrips = new AtomicInteger();
    private final AtomicInteger statements = new AtomicInteger();

    public CountingDataSource(DataSource delegate) {
        super(delegate);
    }

    /** Round trips since the last reset. */
    public int roundTrips() {
        return roundTrips.get();
    }

    /** Statements the server ran since the last reset: executions and batch entries. */
    public int statements() {
        return statements.get();
    }

    public void reset() {
        roundTrips.set(0);
        statements.set(0);
    }

    @Override
    public Connection getConnection() throws SQLException {
        return wrap(delegate.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return wrap(delegate.getConnection(username, password));
    }

    private Connection wrap(Connection connection) {
        InvocationHandler handler = (proxy, method, args) -> {
            String name = method.getName();
            if (CONNECTION_CALLS.contains(name)) {
                roundTrips.incrementAndGet();
            } else if (name.equals("setAutoCommit") && (Boolean) args[0] != connection.getAutoCommit()) {
                roundTrips.incrementAndGet();
            }
            Object result = invoke(connection, method, args);
            if (result instanceof Statement statement && method.getReturnType().isInterface()) {
                return wrapStatement(statement, method.getReturnType());
            }
            return result;
        };
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                handler);
    }

    private Object wrapStatement(Statement statement, Class<?> type) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (STATEMENT_CALLS.contains(method.getName())) {
                roundTrips.incrementAndGet();
                if (!BATCH_CALLS.contains(method.getName())) {
                    statements.incrementAndGet();
                }
            } else if (method.getName().equals("addBatch")) {
                statements.incrementAndGet();
            }
            return invoke(statement, method, args);
        };
        return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler);
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
