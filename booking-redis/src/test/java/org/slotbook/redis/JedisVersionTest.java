package org.slotbook.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slotbook.redis.support.JedisClients;

/**
 * The Jedis these tests run on, with its commons-pool2 and gson, is the one the build asked for (the
 * default or a {@code jedis*} profile): the jars on the test class path say their own versions, so a
 * profile that silently got another Jedis, or a pool or gson older than its Jedis was built with, fails
 * here rather than passing on the wrong versions.
 */
class JedisVersionTest {

    @ParameterizedTest(name = "{0}:{1}")
    @CsvSource({
            "redis.clients, jedis, slotbook.expected.jedis",
            "org.apache.commons, commons-pool2, slotbook.expected.commons-pool2",
            "com.google.code.gson, gson, slotbook.expected.gson"})
    void theClassPathHoldsTheVersionTheBuildAskedFor(String group, String artifact, String property)
            throws IOException {
        String expected = System.getProperty(property);
        Assumptions.assumeTrue(expected != null && !expected.isBlank(), property + " is set by the Maven build");
        String path = "/META-INF/maven/" + group + "/" + artifact + "/pom.properties";
        Properties pom = new Properties();
        try (InputStream in = JedisVersionTest.class.getResourceAsStream(path)) {
            assertThat(in).as(path + " on the test class path").isNotNull();
            pom.load(in);
        }
        System.out.printf("%s:%s %s (tests build %s clients)%n", group, artifact, pom.getProperty("version"),
                JedisClients.API);
        assertThat(pom.getProperty("version")).as(group + ":" + artifact).isEqualTo(expected);
    }
}
