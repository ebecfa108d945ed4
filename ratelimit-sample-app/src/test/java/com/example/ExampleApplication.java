package com.example;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The application the README's quick start assumes (as start.spring.io makes it): the README's Java snippets are
 * compiled here, in its package, and its {@code HelloControllerTests} runs as printed.
 */
@SpringBootApplication
class ExampleApplication {}
