package dev.tandem;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The Tandem server: a low-latency read server for incrementally maintained data. */
@SpringBootApplication
public class TandemApplication {

    public static void main(String[] args) {
        SpringApplication.run(TandemApplication.class, args);
    }
}
