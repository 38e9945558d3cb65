/// An HTTP/1.1 server on plain POSIX sockets.
public enum HTTPServerModule {}
