"""Outlines of the compiled languages: Go, Rust, Java, C, C++ and C#."""

from __future__ import annotations

from outlinekit import flat, src

from diffchunk.files.outline import build_outline


def test_go_functions_methods_with_receivers_and_types() -> None:
    code = src(
        """
        package main

        type Server struct {
            addr string
        }

        type Handler interface {
            Serve() error
        }

        func (s *Server) Start(port int) error {
            return nil
        }

        func main() {
        }
        """
    )
    assert flat(build_outline(code, "go")) == [
        (0, "struct", "Server", 3, 5),
        (0, "interface", "Handler", 7, 9),
        (0, "method", "(*Server) Start", 11, 13),
        (0, "function", "main", 15, 16),
    ]


def test_rust_impls_traits_structs_and_modules() -> None:
    code = src(
        """
        mod util {
            pub fn helper() {}
        }

        pub struct Point {
            x: i32,
        }

        pub trait Shape {
            fn area(&self) -> f64;
        }

        impl fmt::Display for Point {
            fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
                Ok(())
            }
        }

        impl Point {
            pub fn new() -> Self {
                Point { x: 0 }
            }
        }

        enum Kind { A, B }

        fn main() {}
        """
    )
    assert flat(build_outline(code, "rust")) == [
        (0, "module", "util", 1, 3),
        (1, "function", "helper", 2, 2),
        (0, "struct", "Point", 5, 7),
        (0, "trait", "Shape", 9, 11),
        (1, "method", "area", 10, 10),
        (0, "impl", "impl fmt::Display for Point", 13, 17),
        (1, "method", "fmt", 14, 16),
        (0, "impl", "impl Point", 19, 23),
        (1, "method", "new", 20, 22),
        (0, "enum", "Kind", 25, 25),
        (0, "function", "main", 27, 27),
    ]


def test_java_classes_constructors_methods_and_nested_types() -> None:
    code = src(
        """
        package demo;

        @Entity
        public class Account {
            private int id;

            public Account(int id) {
                this.id = id;
            }

            public int getId() {
                return id;
            }

            static class Builder {
                Account build() { return null; }
            }
        }

        interface Repository {
            Account find(int id);
        }

        enum Status { OPEN, CLOSED }
        """
    )
    assert flat(build_outline(code, "java")) == [
        (0, "class", "Account", 3, 18),
        (1, "constructor", "Account", 7, 9),
        (1, "method", "getId", 11, 13),
        (1, "class", "Builder", 15, 17),
        (2, "method", "build", 16, 16),
        (0, "interface", "Repository", 20, 22),
        (1, "method", "find", 21, 21),
        (0, "enum", "Status", 24, 24),
    ]


def test_c_functions_through_pointer_declarators_and_structs() -> None:
    code = src(
        """
        #include <stdio.h>

        struct point {
            int x;
        };

        typedef struct {
            int y;
        } Pair;

        static int
        add(int a, int b)
        {
            return a + b;
        }

        char **names(void) {
            return 0;
        }
        """
    )
    assert flat(build_outline(code, "c")) == [
        (0, "struct", "point", 3, 5),
        (0, "struct", "Pair", 7, 9),
        (0, "function", "add", 11, 15),
        (0, "function", "names", 17, 19),
    ]


def test_cpp_namespaces_classes_methods_and_qualified_functions() -> None:
    code = src(
        """
        namespace geo {
        class Shape {
         public:
          virtual ~Shape() {}
          double area() const { return 0; }
        };

        double Shape::perimeter() const {
          return 1;
        }

        template <typename T>
        T twice(T v) { return v + v; }
        }  // namespace geo

        int &ref(int &a) { return a; }
        """
    )
    assert flat(build_outline(code, "cpp")) == [
        (0, "namespace", "geo", 1, 14),
        (1, "class", "Shape", 2, 6),
        (2, "method", "~Shape", 4, 4),
        (2, "method", "area", 5, 5),
        (1, "function", "Shape::perimeter", 8, 10),
        (1, "function", "twice", 13, 13),
        (0, "function", "ref", 16, 16),
    ]


def test_csharp_namespaces_classes_and_members() -> None:
    code = src(
        """
        namespace Shop.Orders
        {
            public class Order
            {
                public Order() { }

                public decimal Total(int n)
                {
                    return n;
                }

                ~Order() { }
            }

            public interface IRepo
            {
                Order Get(int id);
            }

            public record Line(int Qty);
        }
        """
    )
    assert flat(build_outline(code, "csharp")) == [
        (0, "namespace", "Shop.Orders", 1, 21),
        (1, "class", "Order", 3, 13),
        (2, "constructor", "Order", 5, 5),
        (2, "method", "Total", 7, 10),
        (2, "method", "~Order", 12, 12),
        (1, "interface", "IRepo", 15, 18),
        (2, "method", "Get", 17, 17),
        (1, "record", "Line", 20, 20),
    ]
