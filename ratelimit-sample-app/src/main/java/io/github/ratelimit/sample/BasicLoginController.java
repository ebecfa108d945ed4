package io.github.ratelimit.sample;

import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * A login limited by a path rule, not an annotation (application.yml: the rule {@code basic-login} with
 * {@code count-on: failure}): the password is "secret"; 3 failed logins per minute for a user (the X-User header), then
 * 429 even with the right password; successes never count.
 */
@RestController
class BasicLoginController {

    @PostMapping("/api/basic-login")
    ResponseEntity<Map<String, Object>> login(
            @RequestHeader("X-User") String user,
            @RequestHeader(name = "X-Password", required = false) String password) {
        return "secret".equals(password)
                ? ResponseEntity.ok(Map.<String, Object>of("user", user))
                : ResponseEntity.status(HttpStatus.UNAUTHORIZED)
                        .body(Map.<String, Object>of("error", "wrong password"));
    }
}
