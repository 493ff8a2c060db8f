"""SSH to rented machines over paramiko: pool, ssh_config, host keys, exec, streams, SFTP."""
